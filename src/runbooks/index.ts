/** The operator's runbooks: discovery, manifests, checks, playbooks, skills and MCP servers. */
export { BUILT_IN, discoverRunbooks, type DiscoverOptions, LIBRARY_DIR } from './discover.js';
export { runbooksJson } from './json.js';
export { formatIssue, lintRunbooks } from './lint.js';
export { allowedAt, docsNamed } from './select.js';
export type {
  DocKind,
  Issue,
  Manifest,
  McpServer,
  Repository,
  RunbookDoc,
  Runbooks,
  Tier,
} from './types.js';
export { DOC_KINDS } from './types.js';
export { runbooksSection } from './prompt.js';
export { withRepositoryServers } from './mcp-merge.js';
