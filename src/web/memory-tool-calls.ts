/**
 * The memory tool calls a session made (`mcp__watchkeeper__memory_*`), read from its raw
 * stream-json log: each call's tool, input and what the model got back. Bounded: at most
 * MAX_CALLS calls are kept, and inputs and answers are clipped.
 */
import { createReadStream } from 'node:fs';

import { parseStream } from '../stream/index.js';
import { clipBlock } from './session-log.js';

export const MEMORY_TOOL_PREFIX = 'mcp__watchkeeper__';
const MAX_CALLS = 200;
const MAX_INPUT_CHARS = 600;
const MAX_RESULT_CHARS = 2_000;

export interface MemoryToolCall {
  /** `memory_add`, `memory_query`, ... */
  tool: string;
  toolUseId: string;
  /** The arguments as `key: value` pairs (strings as they were, others as JSON). */
  input: { key: string; value: string }[];
  /** What the tool answered; null when the log has no answer (the session ended first). */
  result: string | null;
  isError: boolean;
}

function inputPairs(input: unknown): MemoryToolCall['input'] {
  if (typeof input !== 'object' || input === null) return [];
  return Object.entries(input).map(([key, value]) => ({
    key,
    value: clipBlock(typeof value === 'string' ? value : JSON.stringify(value), MAX_INPUT_CHARS),
  }));
}

/** The session's memory tool calls, oldest first; [] when it has no log. */
export async function readMemoryToolCalls(
  path: string | null,
  opts: { maxLineBytes: number },
): Promise<MemoryToolCall[]> {
  if (path === null) return [];
  const calls: MemoryToolCall[] = [];
  const byId = new Map<string, MemoryToolCall>();
  try {
    await parseStream(createReadStream(path), {
      maxLineBytes: opts.maxLineBytes,
      onMessage: (message) => {
        if (message.type !== 'assistant' && message.type !== 'user') return;
        for (const block of message.content) {
          if (block.type === 'tool_use' && block.name.startsWith(MEMORY_TOOL_PREFIX)) {
            if (calls.length >= MAX_CALLS) continue;
            const call: MemoryToolCall = {
              tool: block.name.slice(MEMORY_TOOL_PREFIX.length),
              toolUseId: block.id,
              input: inputPairs(block.input),
              result: null,
              isError: false,
            };
            calls.push(call);
            byId.set(block.id, call);
          } else if (block.type === 'tool_result') {
            const call = byId.get(block.toolUseId);
            if (!call) continue;
            call.result = clipBlock(block.content, MAX_RESULT_CHARS);
            call.isError = block.isError;
          }
        }
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return calls;
}
