/**
 * watchkeeper's own session logs (`data/sessions/<id>.ndjson`: the CLI's stream-json, byte for
 * byte) to turns. As for the markers, only the main agent's text blocks are the model's own words;
 * tool calls and results are context, and subagents, thinking and `result.result` (a repeat of the
 * last text) are skipped. The user's prompt is not in the stream: the indexer takes it from the
 * session row.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

import { parseLine } from '../../stream/index.js';
import { type ParsedLine, type Turn, toolContext } from '../turns.js';

/** watchkeeper's records of its sessions' logs (paths relative to the data folder). */
export interface SessionLogRecords {
  idByLogPath(logPath: string): number | null;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The watchkeeper session whose recorded log is `file`, or null: the file as named, and as
 * reached through symlinks (a data folder given through a link), relative to the data folder.
 */
export function watchkeeperLogOwner(dataDir: string, records: SessionLogRecords) {
  const root = resolve(dataDir);
  return (file: string): number | null => {
    const pairs: [string, string][] = [
      [root, resolve(file)],
      [realOr(root), realOr(resolve(file))],
    ];
    for (const [base, path] of pairs) {
      const rel = relative(base, path);
      if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) continue;
      const id = records.idByLogPath(rel.split(sep).join('/'));
      if (id !== null) return id;
    }
    return null;
  };
}

export function watchkeeperLogLine(bytes: Buffer, line: number): ParsedLine {
  const parsed = parseLine(bytes);
  if (parsed.kind !== 'message') return { turns: [], meta: {} };
  const m = parsed.message;
  const turns: Turn[] = [];
  if (m.type === 'system') {
    return { turns, meta: m.sessionId ? { session: m.sessionId } : {} };
  }
  if ((m.type !== 'assistant' && m.type !== 'user') || m.parentToolUseId !== null) {
    return { turns, meta: {} };
  }
  const texts: string[] = [];
  for (const b of m.content) {
    if (b.type === 'text' && m.type === 'assistant') texts.push(b.text);
    else if (b.type === 'tool_use') {
      const input = (b.input ?? {}) as { command?: unknown; description?: unknown };
      const detail =
        typeof input.command === 'string' ? input.command : String(input.description ?? '');
      turns.push({ line, role: 'tool', text: toolContext(`${b.name}: ${detail}`), at: null });
    } else if (b.type === 'tool_result') {
      turns.push({ line, role: 'tool', text: toolContext(b.content), at: null });
    }
  }
  const text = texts.join('\n').trim();
  if (text.length > 0) turns.unshift({ line, role: 'assistant', text, at: null });
  return { turns, meta: {} };
}
