/**
 * The watchkeeper MCP server: four memory tools over the one memory service, for the sessions
 * watchkeeper runs (wired through --mcp-config) and for any Claude Code session
 * (`claude mcp add watchkeeper -- node /path/to/watchkeeper/bin/watchkeeper.js mcp`). Input is
 * validated by zod schemas (a bad argument is a tool error naming the field); every answer is
 * short text plus structured content. Writes carry the caller's session and tier, like a marker.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import type { ToolContext } from './context.js';
import { toolError } from './results.js';
import { ADD_INPUT, memoryAdd } from './tools/add.js';
import { memoryQuery, QUERY_INPUT } from './tools/query.js';
import { memoryReinforce, REINFORCE_COSINE, REINFORCE_INPUT } from './tools/reinforce.js';
import { memoryVerify, VERIFY_INPUT } from './tools/verify.js';

export const SERVER_NAME = 'watchkeeper';

const INSTRUCTIONS = `watchkeeper's operational memory: what earlier runs learned about the services here.
memory_query looks things up (scope notes, archive, knowledge or all); memory_verify checks a claim
before you act on it (confirmed, related, conflict or new); memory_add stores a durable fact (a
near-duplicate reinforces the existing memory); memory_reinforce adds new evidence to a memory.`;

/** The `_meta` Claude Code sends with a tool call names the tool_use block it answers. */
function toolUseId(meta: Record<string, unknown> | undefined): string | null {
  const id = meta?.['claudecode/toolUseId'];
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : null;
}

export function createMemoryServer(ctx: ToolContext, version: string): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version },
    { instructions: INSTRUCTIONS, maxToolInputElements: 200 },
  );
  // Whatever a tool throws becomes a tool error for the model; the server keeps serving.
  const guard =
    <A>(
      run: (args: A, meta: Record<string, unknown> | undefined) => Promise<CallToolResult>,
      fields: Record<string, string> = {},
    ) =>
    async (args: A, extra: { _meta?: Record<string, unknown> }): Promise<CallToolResult> => {
      try {
        return await run(args, extra._meta);
      } catch (err) {
        return toolError(err, ctx.log, fields);
      }
    };

  server.registerTool(
    'memory_add',
    {
      title: 'Remember a fact',
      description:
        'Store a durable operational fact in long-term memory (one a future run would need). ' +
        'If memory already says the same, that memory is reinforced instead and the answer shows ' +
        'it; if it states a different value on the same topic, the new fact supersedes it. ' +
        'Markers ([MEMORY:category:service]) remain the usual way to record what you observed.',
      inputSchema: ADD_INPUT,
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guard(
      (
        args: {
          content: string;
          service?: string;
          category?: string;
          importance: 'low' | 'normal' | 'high' | 'core';
        },
        meta,
      ) => memoryAdd(ctx, args, toolUseId(meta)),
      { observation: 'content' },
    ),
  );

  server.registerTool(
    'memory_query',
    {
      title: 'Look up memory',
      description:
        'Search long-term memory by meaning and words: memories (relevance score, confidence, ' +
        'importance, last reinforced, where each came from), archived ones with why, and the ' +
        'known services. Use it to recall something not in your starting context.',
      inputSchema: QUERY_INPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard(
      (args: { query: string; scope: 'notes' | 'archive' | 'knowledge' | 'all'; limit: number }) =>
        memoryQuery(ctx, args),
    ),
  );

  server.registerTool(
    'memory_verify',
    {
      title: 'Check a claim against memory',
      description:
        'Check a specific claim against long-term memory before acting on it or storing it: ' +
        'confirmed (memory says the same), related (memory knows the topic, not this), conflict ' +
        '(a memory states a different value: number, duration, version, port, or the opposite), ' +
        'or new. Lists the matching memories with their sources.',
      inputSchema: VERIFY_INPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guard((args: { claim: string }) => memoryVerify(ctx, args)),
  );

  server.registerTool(
    'memory_reinforce',
    {
      title: 'Reinforce a memory with new evidence',
      description:
        `Confirm a fact memory already holds, with new evidence: the closest memory (at least ${REINFORCE_COSINE} ` +
        'similar) gains confidence and importance, and the evidence is kept in its history. ' +
        'When nothing matches, use memory_add.',
      inputSchema: REINFORCE_INPUT,
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guard((args: { content: string; new_evidence?: string }) => memoryReinforce(ctx, args), {
      observation: 'content',
    }),
  );
  return server;
}
