/**
 * watchkeeper's own session logs (`data/sessions/<id>.ndjson`: the CLI's stream-json, byte for
 * byte) to turns. As for the markers, only the main agent's text blocks are the model's own words;
 * tool calls and results are context, and subagents, thinking and `result.result` (a repeat of the
 * last text) are skipped. The user's prompt is not in the stream: the indexer takes it from the
 * session row.
 */
import { parseLine } from '../../stream/index.js';
import { type ParsedLine, type Turn, toolContext } from '../turns.js';

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
