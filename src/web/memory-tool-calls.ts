/**
 * The memory tool calls a session made (`mcp__watchkeeper__memory_*`), read from its raw
 * stream-json log: each call's tool, input and what the model got back. Bounded: at most
 * MAX_CALLS calls are kept, and inputs and answers are clipped. A log only grows, so what was
 * read of it is kept (for the last MAX_SCANS logs) and the next read starts where this one
 * stopped: a 100 MB log is read once, not on every view of its page, and a running session's
 * page reads only the lines added since. Only lines that name a memory tool, or the id of a call
 * still waiting for its answer, are parsed.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

import { LineSplitter, parseLine, type StreamMessage } from '../stream/index.js';
import { clipBlock } from './session-log.js';

export const MEMORY_TOOL_PREFIX = 'mcp__watchkeeper__';
const MAX_CALLS = 200;
const MAX_INPUT_CHARS = 600;
const MAX_RESULT_CHARS = 2_000;
const MAX_SCANS = 32;
const PREFIX_BYTES = Buffer.from(MEMORY_TOOL_PREFIX);

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

/** What was read of one log: through `offset` (a line start), in the file `ino`. */
interface Scan {
  ino: number;
  offset: number;
  calls: MemoryToolCall[];
  /** Calls still without an answer, by tool_use id. */
  waiting: Map<string, MemoryToolCall>;
}

const scans = new Map<string, Scan>();
const reading = new Map<string, Promise<unknown>>();

function inputPairs(input: unknown): MemoryToolCall['input'] {
  if (typeof input !== 'object' || input === null) return [];
  return Object.entries(input).map(([key, value]) => ({
    key,
    value: clipBlock(typeof value === 'string' ? value : JSON.stringify(value), MAX_INPUT_CHARS),
  }));
}

function record(scan: Scan, message: StreamMessage): void {
  if (message.type !== 'assistant' && message.type !== 'user') return;
  for (const block of message.content) {
    if (block.type === 'tool_use' && block.name.startsWith(MEMORY_TOOL_PREFIX)) {
      if (scan.calls.length >= MAX_CALLS) continue;
      const call: MemoryToolCall = {
        tool: block.name.slice(MEMORY_TOOL_PREFIX.length),
        toolUseId: block.id,
        input: inputPairs(block.input),
        result: null,
        isError: false,
      };
      scan.calls.push(call);
      scan.waiting.set(block.id, call);
    } else if (block.type === 'tool_result') {
      const call = scan.waiting.get(block.toolUseId);
      if (!call) continue;
      scan.waiting.delete(block.toolUseId);
      call.result = clipBlock(block.content, MAX_RESULT_CHARS);
      call.isError = block.isError;
    }
  }
}

/** Whether a line can hold a memory tool call or the answer to a waiting one. */
function worthParsing(scan: Scan, line: Buffer): boolean {
  if (line.includes(PREFIX_BYTES)) return true;
  for (const id of scan.waiting.keys()) if (line.includes(id)) return true;
  return false;
}

/** A copy of a read whose calls can be answered without changing the kept ones. */
function copyOf(scan: Scan): Scan {
  const calls = scan.calls.map((c) => ({ ...c }));
  const byId = new Map(calls.map((c) => [c.toolUseId, c]));
  const waiting = new Map([...scan.waiting.keys()].map((id) => [id, byId.get(id)!]));
  return { ino: scan.ino, offset: scan.offset, calls, waiting };
}

/**
 * Reads the complete lines after `scan.offset` into `scan`. An unfinished last line (a running
 * session is still writing it, or the file lacks a final newline) is read into a copy that is
 * returned, and read again next time; without one, `scan` itself is returned.
 */
async function readOn(path: string, scan: Scan, opts: { maxLineBytes: number }): Promise<Scan> {
  let into = scan;
  let tail = false;
  const splitter = new LineSplitter({
    maxLineBytes: opts.maxLineBytes,
    onLine: (line) => {
      if (!tail) scan.offset += line.length + 1;
      if (!worthParsing(into, line)) return;
      const outcome = parseLine(line);
      if (outcome.kind === 'message') record(into, outcome.message);
    },
    onOversized: (bytes) => {
      if (!tail) scan.offset += bytes + 1;
    },
  });
  for await (const chunk of createReadStream(path, { start: scan.offset })) {
    splitter.push(chunk as Buffer);
  }
  if (splitter.bufferedBytes > 0) {
    tail = true;
    into = copyOf(scan);
    splitter.end();
  }
  return into;
}

/** Brings the kept read of `path` up to date with the file; null when there is no file. */
async function scanOf(path: string, opts: { maxLineBytes: number }): Promise<Scan | null> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let scan = scans.get(path);
  if (!scan || scan.ino !== info.ino || info.size < scan.offset) {
    scan = { ino: info.ino, offset: 0, calls: [], waiting: new Map() };
  }
  scans.delete(path);
  const read = info.size > scan.offset ? await readOn(path, scan, opts) : scan;
  scans.set(path, scan);
  if (scans.size > MAX_SCANS) scans.delete(scans.keys().next().value!);
  return read;
}

/** The session's memory tool calls, oldest first; [] when it has no log. */
export async function readMemoryToolCalls(
  path: string | null,
  opts: { maxLineBytes: number },
): Promise<MemoryToolCall[]> {
  if (path === null) return [];
  // One read of a log at a time: a second view waits, then reads on from where it stopped.
  while (reading.has(path)) await reading.get(path)!.catch(() => undefined);
  const job = scanOf(path, opts);
  reading.set(path, job);
  try {
    const scan = await job;
    return scan ? scan.calls.map((c) => ({ ...c })) : [];
  } finally {
    reading.delete(path);
  }
}
