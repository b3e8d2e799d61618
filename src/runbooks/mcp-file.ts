/**
 * A repository's `.claude-ops/mcp.json`: `{"mcpServers": {"name": {...}}}` as Claude Code reads
 * it. A file that does not parse is an issue at the line JSON.parse stopped on; a server that
 * names neither a command nor a url is an issue at its own line, and the others are still used.
 */
import type { Issue, McpServer } from './types.js';

/** The 1-based line of a character offset. */
function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Where JSON.parse stopped: its message gives a position (Node 20) or a line (later). */
function errorLine(text: string, message: string): number {
  const line = /\(line (\d+) column \d+\)/.exec(message)?.[1];
  if (line) return Number(line);
  const pos = /at position (\d+)/.exec(message)?.[1];
  return pos ? lineOf(text, Number(pos)) : lineOf(text, text.length);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseMcpFile(
  text: string,
  meta: { source: string; path: string },
): { servers: McpServer[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const at = (line: number, message: string) => issues.push({ file: meta.path, line, message });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    at(
      errorLine(text, message),
      `not valid JSON: ${message.replace(/\s*(\(line \d+|in JSON at position).*$/, '')}`,
    );
    return { servers: [], issues };
  }
  const servers = isObject(parsed) ? parsed.mcpServers : undefined;
  if (!isObject(servers)) {
    at(1, 'expected {"mcpServers": {"name": {"command": ...}}}');
    return { servers: [], issues };
  }
  const out: McpServer[] = [];
  for (const [name, config] of Object.entries(servers)) {
    const keyAt = text.indexOf(JSON.stringify(name));
    const line = keyAt >= 0 ? lineOf(text, keyAt) : 1;
    if (
      !isObject(config) ||
      (typeof config.command !== 'string' && typeof config.url !== 'string')
    ) {
      at(line, `server "${name}" needs a "command" (stdio) or a "url" (http, sse)`);
      continue;
    }
    out.push({ name, config, source: meta.source, path: meta.path });
  }
  return { servers: out, issues };
}
