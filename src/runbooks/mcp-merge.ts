/**
 * The repositories' MCP servers joined to a session's MCP config, as Claude Ops merged them: in
 * repository name order, a later repository's server replacing an earlier one of the same name.
 * The session's own servers (the memory tools) are never replaced; what is not used is an issue.
 */
import type { Issue, McpServer } from './types.js';

export function withRepositoryServers(
  base: Record<string, unknown>,
  servers: readonly McpServer[],
): { config: Record<string, unknown>; issues: Issue[] } {
  const own = (base.mcpServers ?? {}) as Record<string, unknown>;
  const issues: Issue[] = [];
  const added = new Map<string, McpServer>();
  for (const s of servers) {
    if (Object.hasOwn(own, s.name)) {
      issues.push({
        file: s.path,
        line: 0,
        message: `server "${s.name}" is watchkeeper's own: not used`,
      });
      continue;
    }
    const earlier = added.get(s.name);
    if (earlier) {
      issues.push({
        file: earlier.path,
        line: 0,
        message: `server "${s.name}" is replaced by the one in ${s.path}`,
      });
    }
    added.set(s.name, s);
  }
  const repo = Object.fromEntries([...added].map(([name, s]) => [name, s.config]));
  return { config: { ...base, mcpServers: { ...repo, ...own } }, issues };
}
