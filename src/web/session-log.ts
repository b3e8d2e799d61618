/**
 * Stream messages as lines of a session's activity log (partials/log-entry.eta). Pure: the same
 * entries come from the live feed and from the session's log file. Text is kept as text; the
 * template escapes it. Thinking and unknown message types are not shown.
 */
import type { FeedItem } from '../runner/live-feed.js';
import type { ContentBlock, StreamMessage } from '../stream/index.js';
import { markerSegments, type TextSegment } from './marker-text.js';
import { clip, cost, duration, plural } from './view-helpers.js';

export type LogEntryKind = 'system' | 'text' | 'tool' | 'tool-result' | 'result' | 'stderr';

export interface LogEntry {
  /** Also the entry's CSS class (`.log .entry.tool`, ...). */
  kind: LogEntryKind;
  /** The muted word before the line: "assistant", "subagent", "tool", "stderr"... */
  label: string;
  /** Set for lines from a subagent (Task/Agent tool), which markers are never read from. */
  subagent: boolean;
  /** A name shown in bold after the label (the tool's), or null. */
  title: string | null;
  /** The line; in assistant text, marker tags are segments of their own. */
  segments: TextSegment[];
  /** A block shown in a <pre> (tool output, result errors), already clipped; null for none. */
  pre: string | null;
  error: boolean;
  /** When the line arrived (epoch ms); absent or null when that was not recorded. */
  at?: number | null;
}

export const MAX_TOOL_OUTPUT_CHARS = 4_000;
const MAX_TEXT_CHARS = 20_000;
const MAX_TOOL_INPUT_CHARS = 300;

/** The one input field that says what a tool call does. */
const KEY_FIELD: Record<string, string> = {
  Bash: 'command',
  Read: 'file_path',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Grep: 'pattern',
  Glob: 'pattern',
  WebFetch: 'url',
  WebSearch: 'query',
  Task: 'prompt',
  Agent: 'prompt',
};

function entry(
  kind: LogEntryKind,
  label: string,
  text: string,
  more: Partial<Omit<LogEntry, 'kind' | 'label'>> = {},
): LogEntry {
  return {
    kind,
    label,
    subagent: false,
    title: null,
    segments: text === '' ? [] : [{ text, marker: null }],
    pre: null,
    error: false,
    ...more,
  };
}

/** Keeps the start of a long block and says how much was cut. */
export function clipBlock(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${plural(text.length - max, 'more character')})`;
}

function toolSummary(name: string, input: unknown): string {
  const field = KEY_FIELD[name];
  if (!field || typeof input !== 'object' || input === null) return '';
  const value = (input as Record<string, unknown>)[field];
  return typeof value === 'string' ? clip(value, MAX_TOOL_INPUT_CHARS) : '';
}

function blockEntry(block: ContentBlock, subagent: boolean): LogEntry | null {
  const label = (word: string) => (subagent ? `subagent ${word}` : word);
  switch (block.type) {
    case 'text': {
      const text = clipBlock(block.text.trim(), MAX_TEXT_CHARS);
      if (text === '') return null;
      return entry('text', subagent ? 'subagent' : 'assistant', '', {
        subagent,
        segments: markerSegments(text),
      });
    }
    case 'tool_use':
      return entry('tool', label('tool'), toolSummary(block.name, block.input), {
        subagent,
        title: block.name || '(unnamed tool)',
      });
    case 'tool_result':
      return entry('tool-result', label(block.isError ? 'tool error' : 'output'), '', {
        subagent,
        pre: block.content === '' ? '(no output)' : clipBlock(block.content, MAX_TOOL_OUTPUT_CHARS),
        error: block.isError,
      });
    default:
      return null;
  }
}

function resultEntry(message: Extract<StreamMessage, { type: 'result' }>): LogEntry {
  const ok = !message.isError && message.subtype === 'success';
  const facts = [
    message.numTurns === null ? null : plural(message.numTurns, 'turn'),
    message.totalCostUsd === null ? null : cost(message.totalCostUsd),
    message.durationMs === null ? null : duration(message.durationMs),
  ].filter((f): f is string => f !== null);
  const what = ok
    ? 'session complete'
    : `session error${message.subtype && message.subtype !== 'success' ? `: ${message.subtype}` : ''}`;
  return entry('result', 'result', `${what}${facts.length ? ` (${facts.join(', ')})` : ''}`, {
    pre: message.errors.length ? clipBlock(message.errors.join('\n'), MAX_TOOL_OUTPUT_CHARS) : null,
    error: !ok,
  });
}

/** The log lines one stream message shows as (none for thinking, unknown types...). */
export function entriesFromMessage(message: StreamMessage): LogEntry[] {
  switch (message.type) {
    case 'system': {
      if (message.subtype !== 'init') return [];
      const tools = Array.isArray(message.raw.tools) ? message.raw.tools.length : null;
      const parts = [
        'session started',
        message.model,
        tools === null ? null : plural(tools, 'tool'),
      ];
      return [entry('system', 'system', parts.filter(Boolean).join(' · '))];
    }
    case 'assistant':
    case 'user': {
      const subagent = message.parentToolUseId !== null;
      // The CLI echoes prompts and subagent instructions as user text; only tool output counts.
      const blocks =
        message.type === 'user'
          ? message.content.filter((b) => b.type === 'tool_result')
          : message.content;
      return blocks.map((b) => blockEntry(b, subagent)).filter((e): e is LogEntry => e !== null);
    }
    case 'result':
      return [resultEntry(message)];
    default:
      return [];
  }
}

/** A chunk of the CLI's stderr as a log line. */
export function stderrEntry(text: string): LogEntry {
  return entry('stderr', 'stderr', clipBlock(text.replace(/\s+$/, ''), MAX_TOOL_OUTPUT_CHARS), {
    error: true,
  });
}

/** The log lines of one live-feed item; the `end` item is not a line (see session-stream). */
export function entriesFromFeedItem(item: FeedItem): LogEntry[] {
  if (item.kind === 'message') {
    return entriesFromMessage(item.message).map((e) => ({ ...e, at: item.at ?? null }));
  }
  if (item.kind === 'stderr') return [stderrEntry(item.text)];
  return [];
}
