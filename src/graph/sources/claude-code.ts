/**
 * Claude Code transcript JSONL (`~/.claude/projects/<project>/<session>.jsonl`, and each subagent's
 * `<session>/subagents/agent-<id>.jsonl`) to turns. The format is internal to Claude Code and
 * changes between versions, so only a few fields are read and everything else is ignored: user
 * prompts (not meta lines, command echoes or compaction summaries), the model's text blocks, and
 * tool calls and results as context only.
 */
import { parseLine } from '../../stream/index.js';
import type { JsonObject } from '../../stream/index.js';
import { isoToMs, type ParsedLine, type Turn, toolContext } from '../turns.js';

/** User text Claude Code writes itself: command echoes, reminders, caveats, interruptions. */
const HARNESS_TEXT =
  /^\s*(?:<(?:command-|local-command|system-reminder|bash-|user-prompt-submit-hook|task-notification)|Caveat: |\[Request interrupted)/;

function obj(value: unknown): JsonObject | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : null;
}

function textOfResult(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => {
      const block = obj(b);
      return block && typeof block.text === 'string' ? block.text : '';
    })
    .join('\n');
}

function toolCall(block: JsonObject): string {
  const input = obj(block.input) ?? {};
  const detail =
    typeof input.command === 'string'
      ? input.command
      : typeof input.file_path === 'string'
        ? input.file_path
        : typeof input.description === 'string'
          ? input.description
          : '';
  return toolContext(`${String(block.name ?? 'tool')}: ${detail}`);
}

/** One line of a Claude Code transcript; `subagent` when the file is a subagent's. */
export function claudeCodeLine(bytes: Buffer, line: number, subagent: boolean): ParsedLine {
  const parsed = parseLine(bytes);
  if (parsed.kind !== 'message') return { turns: [], meta: {} };
  const raw = parsed.message.raw;
  const at = isoToMs(raw.timestamp);
  const meta: ParsedLine['meta'] = {};
  if (typeof raw.sessionId === 'string') meta.session = raw.sessionId;
  if (typeof raw.cwd === 'string' && raw.cwd.length > 0) {
    meta.project =
      raw.cwd
        .replace(/[\\/]+$/, '')
        .split(/[\\/]/)
        .pop() ?? raw.cwd;
  }
  if (at !== undefined) meta.at = at;
  const type = typeof raw.type === 'string' ? raw.type : '';
  if (type === 'custom-title' && typeof raw.customTitle === 'string') meta.title = raw.customTitle;
  if (type === 'ai-title' && typeof raw.aiTitle === 'string') meta.title = raw.aiTitle;
  if (type === 'summary' && typeof raw.summary === 'string') meta.title = raw.summary;
  if (type !== 'user' && type !== 'assistant') return { turns: [], meta };
  // A sidechain in a main transcript is a subagent's line written there by older versions.
  if (
    raw.isMeta === true ||
    raw.isCompactSummary === true ||
    (raw.isSidechain === true && !subagent)
  )
    return { turns: [], meta };

  const message = obj(raw.message);
  const content = message?.content;
  const turns: Turn[] = [];
  const texts: string[] = [];
  const push = (role: Turn['role'], text: string) => {
    if (text.trim().length > 0) turns.push({ line, role, text, at: at ?? null });
  };
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  if (!Array.isArray(blocks)) return { turns, meta };
  for (const item of blocks) {
    const block = obj(item);
    if (!block) continue;
    if (block.type === 'text' && typeof block.text === 'string') {
      if (type === 'user' && HARNESS_TEXT.test(block.text)) continue;
      texts.push(block.text);
    } else if (block.type === 'tool_use') {
      push('tool', toolCall(block));
    } else if (block.type === 'tool_result') {
      push('tool', toolContext(textOfResult(block.content)));
    }
  }
  const text = texts.join('\n').trim();
  // A slash command typed by the user (`/remember ...`) asks for something; it says nothing.
  if (text.length > 0 && !(type === 'user' && text.startsWith('/'))) {
    turns.unshift({ line, role: type, text, at: at ?? null });
  }
  return { turns, meta };
}
