/**
 * Fuzzing the ingest path (parser, markers, ingest, session row, raw log) with random, mutated,
 * truncated, deeply nested and huge inputs. Every case is derived from one seed, so a failure is
 * reproduced by running this file with WATCHKEEPER_FUZZ_SEED set to the seed it prints; the
 * default seed keeps CI deterministic.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AppError } from '../../src/errors.js';
import { importTranscript } from '../../src/runner/import.js';
import { StreamParser } from '../../src/stream/parser.js';
import { testApp, type TestApp } from '../helpers/db.js';
import {
  assistantBlocks,
  assistantText,
  init,
  result,
  toolResult,
  toolUse,
  transcript,
} from '../helpers/stream.js';

const SEED = Number(process.env.WATCHKEEPER_FUZZ_SEED ?? 20_261_123);
const MAX_LINE = 256 * 1024;

/** mulberry32: small, fast and good enough to pick bytes and shapes. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick };
}
type Rng = ReturnType<typeof prng>;

const WORDS = [
  '[EVENT:warning:db] slow',
  '[MEMORY:timing:web] Takes 30s to start',
  '[COOLDOWN:restart:web] success - ok',
  '[ESCALATE:2] look closer',
  '[EVENT:info:bad name!] x',
  '```',
  '~~~~',
  '> quoted',
  '    indented',
  '\u0000\u001b[31m\u202e',
  '\ud800',
  '\r',
  '',
  'plain prose',
];

function randomText(rng: Rng): string {
  const lines: string[] = [];
  for (let i = rng.int(8); i >= 0; i -= 1) lines.push(rng.pick(WORDS));
  return lines.join(rng.pick(['\n', '\r\n', ' ']));
}

function randomJson(rng: Rng, depth: number): unknown {
  const kind = depth > 4 ? rng.int(4) : rng.int(7);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng.next() < 0.5 ? rng.int(1000) - 500 : rng.next() * 1e308;
    case 2:
      return rng.next() < 0.5;
    case 3:
      return randomText(rng);
    case 4:
      return Array.from({ length: rng.int(4) }, () => randomJson(rng, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i -= 1) {
        out[rng.pick(['type', 'text', 'content', 'subtype', 'session_id', 'x'])] = randomJson(
          rng,
          depth + 1,
        );
      }
      return out;
    }
  }
}

/** A message shaped like stream-json whose fields may hold any JSON value. */
function randomMessage(rng: Rng): string {
  const type = rng.pick(['system', 'assistant', 'user', 'result', 'stream_event', 7, null]);
  const maybe = (good: unknown) => (rng.next() < 0.7 ? good : randomJson(rng, 2));
  const blocks = Array.from({ length: rng.int(5) }, () =>
    rng.next() < 0.6
      ? { type: maybe('text'), text: maybe(randomText(rng)) }
      : {
          type: rng.pick(['tool_use', 'tool_result', 'thinking', 'image']),
          ...(randomJson(rng, 3) as object),
        },
  );
  return JSON.stringify({
    type,
    subtype: maybe(rng.pick(['init', 'success', 'error_max_turns'])),
    session_id: maybe(`s-${rng.int(5)}`),
    is_error: maybe(rng.next() < 0.3),
    message: maybe({ id: maybe(`m${rng.int(3)}`), content: maybe(blocks) }),
    parent_tool_use_id: rng.next() < 0.8 ? null : randomJson(rng, 3),
    usage: maybe({ input_tokens: 3 }),
    result: maybe(randomText(rng)),
    errors: maybe([randomText(rng)]),
  });
}

function realistic(rng: Rng): string {
  const lines = [init()];
  for (let i = rng.int(6); i >= 0; i -= 1) {
    lines.push(
      rng.pick([
        () => assistantText(randomText(rng)),
        () => toolUse(randomText(rng)),
        () => toolResult(randomText(rng)),
        () => randomMessage(rng),
      ])(),
    );
  }
  if (rng.next() < 0.8) lines.push(result(randomText(rng)));
  return transcript(lines);
}

function mutate(rng: Rng, input: Buffer): Buffer {
  let out = Buffer.from(input);
  for (let i = rng.int(4); i >= 0; i -= 1) {
    const at = rng.int(out.length + 1);
    switch (rng.int(4)) {
      case 0: // truncate
        out = out.subarray(0, at);
        break;
      case 1: // flip a byte
        if (out.length > 0) out[Math.min(at, out.length - 1)] = rng.int(256);
        break;
      case 2: // insert junk
        out = Buffer.concat([
          out.subarray(0, at),
          Buffer.from(Array.from({ length: rng.int(16) }, () => rng.int(256))),
          out.subarray(at),
        ]);
        break;
      default: // drop a slice
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + rng.int(64))]);
    }
  }
  return out;
}

function deep(rng: Rng): string {
  // Up to what still fits under the line cap; JSON.stringify overflows from about 5,000 levels.
  const depth = rng.pick([255, 300, 5_000, 40_000]);
  const nested = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  const arrays = '['.repeat(depth) + ']'.repeat(depth);
  return transcript([
    init(),
    rng.pick([
      `{"type":"assistant","message":{"content":[{"type":"text","text":"[EVENT:info:a] x"},${arrays}]},"parent_tool_use_id":null}`,
      `{"type":"assistant","message":{"content":[{"type":"tool_use","input":${nested}}]},"parent_tool_use_id":null}`,
      arrays,
      result('ok'),
    ]),
    // Last, so that its usage is the one stored on the session row.
    `{"type":"result","subtype":"success","is_error":false,"result":"ok","usage":${nested}}`,
  ]);
}

function huge(rng: Rng): string {
  switch (rng.int(3)) {
    case 0: // a line over the cap, between good lines
      return transcript([
        init(),
        `{"type":"user","x":"${'z'.repeat(MAX_LINE + rng.int(MAX_LINE))}"}`,
        result('ok'),
      ]);
    case 1: // many short lines
      return transcript([
        init(),
        ...Array.from({ length: 20_000 }, (_, i) => `{"type":"ping","n":${i}}`),
        result('ok'),
      ]);
    default: // one message of many blocks, each holding a marker
      return transcript([
        init(),
        assistantBlocks(
          Array.from({ length: rng.pick([5_000, 200_000]) }, (_, i) => ({
            type: 'text',
            text: `[EVENT:info:s${i % 50}] n${i}`,
          })),
        ),
        result('ok'),
      ]);
  }
}

function chunked(rng: Rng, bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  const small = bytes.length < 4096 && rng.next() < 0.2;
  for (let at = 0; at < bytes.length;) {
    const size = small ? 1 : 1 + rng.int(rng.pick([16, 4096, 65536]));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

let app: TestApp;
beforeAll(() => {
  app = testApp();
});
afterAll(() => app.close());

const GENERATORS = {
  random: (rng: Rng) => Buffer.from(Array.from({ length: rng.int(2048) }, () => rng.int(256))),
  message: (rng: Rng) => Buffer.from(transcript([init(), randomMessage(rng), randomMessage(rng)])),
  realistic: (rng: Rng) => Buffer.from(realistic(rng)),
  mutated: (rng: Rng) => mutate(rng, Buffer.from(realistic(rng))),
  deep: (rng: Rng) => Buffer.from(deep(rng)),
  huge: (rng: Rng) => Buffer.from(huge(rng)),
} as const;
const PLAN: [keyof typeof GENERATORS, number][] = [
  ['random', 60],
  ['message', 80],
  ['realistic', 60],
  ['mutated', 100],
  ['deep', 12],
  ['huge', 6],
];

async function fuzzCase(kind: keyof typeof GENERATORS, seed: number): Promise<void> {
  const rng = prng(seed);
  const bytes = GENERATORS[kind](rng);
  const chunks = chunked(rng, bytes);

  // The parser alone: never throws, holds no more than one line's cap between chunks.
  const parser = new StreamParser({ maxLineBytes: MAX_LINE, onMessage: () => {} });
  for (const c of chunks) {
    parser.write(c);
    expect(parser.bufferedBytes).toBeLessThanOrEqual(MAX_LINE);
  }
  parser.end();

  const sessionsBefore = await app.stores.sessions.count();
  let r;
  try {
    r = await importTranscript(chunks, { ...app, maxLineBytes: MAX_LINE }, { force: true });
  } catch (err) {
    // Refusing what is not a transcript is the one expected outcome besides a session.
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_input');
    expect(await app.stores.sessions.count()).toBe(sessionsBefore);
    return;
  }
  const s = r.stats;
  expect(s).toEqual(parser.stats);
  expect(s.bytes).toBe(bytes.length);
  expect(s.lines).toBe(s.messages + s.blankLines + s.nonJsonLines + s.oversizedLines);
  expect(s.unknownTypes).toBeLessThanOrEqual(s.messages);
  expect(s.invalidUtf8Lines).toBeLessThanOrEqual(s.lines);
  for (const n of Object.values(r.counts)) expect(Number.isInteger(n) && n >= 0).toBe(true);
  const row = app.stores.sessions.get(r.sessionId)!;
  expect(row.status).toBe(r.status);
  expect(['completed', 'failed']).toContain(r.status);
  if (r.status === 'completed') expect(row.resultSubtype).toBe('success');
  else expect(row.error).toMatch(/\S/);
  expect(
    app.stores.events.list({ sessionId: r.sessionId, source: 'agent', limit: 1e6 }).length,
  ).toBe(r.counts.events);
}

describe(`ingest fuzz (seed ${SEED}; rerun with WATCHKEEPER_FUZZ_SEED=${SEED})`, () => {
  it.each(PLAN)('%s inputs (%i cases) never crash the ingest path', async (kind, cases) => {
    for (let i = 0; i < cases; i += 1) {
      const seed = (SEED + i * 7919 + kind.length * 104_729) >>> 0;
      try {
        await fuzzCase(kind, seed);
      } catch (err) {
        throw new Error(
          `${kind} case ${i} failed: rerun with WATCHKEEPER_FUZZ_SEED=${SEED} (case seed ${seed}): ${(err as Error).message}`,
          { cause: err },
        );
      }
    }
  });

  it('keeps memory bounded while a 64 MB line streams through', async () => {
    const gc = collector();
    const line = Buffer.alloc(64 * 1024, 0x7a);
    const samples: number[] = [];
    const used = () => {
      gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const base = used();
    async function* source() {
      yield Buffer.from(`${init()}\n{"type":"user","x":"`);
      for (let i = 0; i < 1024; i += 1) {
        yield line;
        if (i % 128 === 0) samples.push(used() - base);
      }
      yield Buffer.from(`"}\n${result('ok')}\n`);
    }
    const r = await importTranscript(source(), { ...app, maxLineBytes: MAX_LINE }, { force: true });
    // Generous: what a leak would hold is the 64 MB line itself.
    expect(samples.reduce((a, b) => Math.max(a, b), 0)).toBeLessThan(24 * 1024 * 1024);
    expect(r).toMatchObject({ status: 'completed', stats: { oversizedLines: 1, messages: 2 } });
  });
});

/** global.gc, exposed at run time when the runner did not start Node with --expose-gc. */
function collector(): (() => void) | undefined {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}
