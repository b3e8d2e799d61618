/**
 * One line of stream-json to one typed message. Lenient by design: unknown types and fields
 * pass through, key order does not matter, and a line that is not a JSON object is reported
 * as junk rather than thrown. So is a line nested deeper than MAX_JSON_DEPTH: JSON.parse copes
 * with any depth, but JSON.stringify (storing `usage`, the live feed) recurses and would overflow
 * the stack far from here, losing the rest of the session.
 */
import { isUtf8 } from 'node:buffer';

import type { ContentBlock, JsonObject, ResultMessage, StreamMessage } from './types.js';

export type LineOutcome =
  | { kind: 'message'; message: StreamMessage; invalidUtf8: boolean }
  | { kind: 'blank' }
  | { kind: 'junk'; reason: 'not_json' | 'not_object' | 'too_deep'; invalidUtf8: boolean };

/** Deepest nesting of objects and arrays read from one line (real lines stay under 20). */
export const MAX_JSON_DEPTH = 256;

const CR = 0x0d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Parses one line (without its `\n`). A trailing `\r` is dropped. */
export function parseLine(line: Buffer): LineOutcome {
  let end = line.length;
  if (end > 0 && line[end - 1] === CR) end -= 1;
  let start = 0;
  while (start < end && isSpace(line[start]!)) start += 1;
  if (start === end) return { kind: 'blank' };
  const bytes = line.subarray(start, end);
  const invalidUtf8 = !isUtf8(bytes);
  if (bytes[0] !== OPEN_BRACE) return { kind: 'junk', reason: 'not_json', invalidUtf8 };
  if (nestedDeeperThan(bytes, MAX_JSON_DEPTH))
    return { kind: 'junk', reason: 'too_deep', invalidUtf8 };
  let value: unknown;
  try {
    // Invalid UTF-8 decodes to U+FFFD; the rest of the message is still worth reading.
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { kind: 'junk', reason: 'not_json', invalidUtf8 };
  }
  if (!isObject(value)) return { kind: 'junk', reason: 'not_object', invalidUtf8 };
  return { kind: 'message', message: toMessage(value), invalidUtf8 };
}

/** Counts brackets outside strings; a line of n bytes nests at most n deep, so short ones pass. */
function nestedDeeperThan(bytes: Buffer, max: number): boolean {
  if (bytes.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i += 1) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i += 1;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === CR;
}

/** Narrows a parsed JSON object to a typed message; anything unrecognised becomes `unknown`. */
export function toMessage(raw: JsonObject): StreamMessage {
  const type = typeof raw.type === 'string' ? raw.type : '';
  switch (type) {
    case 'system':
      return {
        type: 'system',
        subtype: str(raw.subtype) ?? '',
        sessionId: str(raw.session_id),
        model: str(raw.model),
        raw,
      };
    case 'assistant': {
      const message = obj(raw.message);
      return {
        type: 'assistant',
        messageId: str(message?.id),
        model: str(message?.model),
        parentToolUseId: str(raw.parent_tool_use_id),
        content: blocks(message?.content),
        raw,
      };
    }
    case 'user': {
      const message = obj(raw.message);
      return {
        type: 'user',
        parentToolUseId: str(raw.parent_tool_use_id),
        content: blocks(message?.content),
        raw,
      };
    }
    case 'result':
      return toResult(raw);
    default:
      return { type: 'unknown', originalType: type, raw };
  }
}

function toResult(raw: JsonObject): ResultMessage {
  const errors = Array.isArray(raw.errors)
    ? raw.errors.filter((e): e is string => typeof e === 'string')
    : [];
  return {
    type: 'result',
    subtype: str(raw.subtype) ?? '',
    isError: raw.is_error === true,
    result: str(raw.result),
    errors,
    sessionId: str(raw.session_id),
    numTurns: num(raw.num_turns),
    durationMs: num(raw.duration_ms),
    durationApiMs: num(raw.duration_api_ms),
    totalCostUsd: num(raw.total_cost_usd) ?? num(raw.cost_usd),
    usage: obj(raw.usage),
    raw,
  };
}

function blocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out: ContentBlock[] = [];
  for (const item of content) {
    const block = obj(item);
    if (!block) continue;
    const type = str(block.type) ?? '';
    if (type === 'text' && typeof block.text === 'string') {
      out.push({ type: 'text', text: block.text });
    } else if (type === 'thinking') {
      out.push({ type: 'thinking', thinking: str(block.thinking) ?? '' });
    } else if (type === 'tool_use') {
      out.push({
        type: 'tool_use',
        id: str(block.id) ?? '',
        name: str(block.name) ?? '',
        input: block.input,
      });
    } else if (type === 'tool_result') {
      out.push({
        type: 'tool_result',
        toolUseId: str(block.tool_use_id) ?? '',
        content: toolResultText(block.content),
        isError: block.is_error === true,
      });
    } else {
      out.push({ type: 'other', blockType: type });
    }
  }
  return out;
}

/** tool_result content is a string or an array of blocks; only text parts are kept. */
export function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const item of content) {
    const block = obj(item);
    if (block && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function obj(value: unknown): JsonObject | null {
  return isObject(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
