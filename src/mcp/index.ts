/** @module mcp: the memory tools (memory_add, memory_query, memory_verify, memory_reinforce) over MCP. */
export { type Caller, type ToolContext } from './context.js';
export { createMemoryServer, SERVER_NAME } from './server.js';
export { MAX_REQUEST_BYTES } from './limits.js';
export { INVALID_REQUEST, LineCappedStdioTransport, PARSE_ERROR } from './stdio-transport.js';
