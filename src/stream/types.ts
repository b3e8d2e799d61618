/**
 * Typed stream-json messages, as `claude -p --output-format stream-json --verbose` prints them.
 * Only the fields watchkeeper reads are typed; every message keeps its raw object so unknown
 * fields survive, and unknown message types arrive as `UnknownMessage`.
 */

export type JsonObject = Record<string, unknown>;

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; toolUseId: string; content: string; isError: boolean }
  | { type: 'other'; blockType: string };

export interface SystemMessage {
  type: 'system';
  subtype: string;
  sessionId: string | null;
  model: string | null;
  raw: JsonObject;
}

export interface AssistantMessage {
  type: 'assistant';
  messageId: string | null;
  model: string | null;
  /** Set when the line comes from a subagent (Task/Agent tool); null for the main agent. */
  parentToolUseId: string | null;
  content: ContentBlock[];
  raw: JsonObject;
}

export interface UserMessage {
  type: 'user';
  parentToolUseId: string | null;
  content: ContentBlock[];
  raw: JsonObject;
}

export interface ResultMessage {
  type: 'result';
  subtype: string;
  isError: boolean;
  result: string | null;
  errors: string[];
  sessionId: string | null;
  numTurns: number | null;
  durationMs: number | null;
  durationApiMs: number | null;
  totalCostUsd: number | null;
  usage: JsonObject | null;
  raw: JsonObject;
}

export interface UnknownMessage {
  type: 'unknown';
  /** The `type` field as printed, or '' when the object had none. */
  originalType: string;
  raw: JsonObject;
}

export type StreamMessage =
  SystemMessage | AssistantMessage | UserMessage | ResultMessage | UnknownMessage;

/** Counters for everything the parser tolerated; they only ever grow. */
export interface StreamStats {
  bytes: number;
  lines: number;
  messages: number;
  blankLines: number;
  oversizedLines: number;
  nonJsonLines: number;
  invalidUtf8Lines: number;
  unknownTypes: number;
  /** True when the input ended without a final newline (the last line was still parsed). */
  unterminatedLastLine: boolean;
}

export function emptyStats(): StreamStats {
  return {
    bytes: 0,
    lines: 0,
    messages: 0,
    blankLines: 0,
    oversizedLines: 0,
    nonJsonLines: 0,
    invalidUtf8Lines: 0,
    unknownTypes: 0,
    unterminatedLastLine: false,
  };
}
