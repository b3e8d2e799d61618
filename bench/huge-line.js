/**
 * Part (b): peak RSS while a StreamParser (default 16 MB line cap) is fed a stream holding one
 * 100 MB line. The measurement runs in a child process of its own (`node --expose-gc
 * bench/huge-line.js`), so the other parts' memory does not count; the stream is produced chunk
 * by chunk and never held in memory whole. The parent side is `runHugeLineBench`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { round } from './stats.js';

const HUGE_LINE_BYTES = 100e6;
const CHUNK_BYTES = 64 * 1024;
const CHILD_TIMEOUT_MS = 5 * 60_000;
const SESSION = '45012bfe-e406-4917-bfb6-ea536b9713e0';

function normalLine(i) {
  return `${JSON.stringify({
    type: 'assistant',
    message: {
      id: `msg_${i}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [
        { type: 'text', text: `Step ${i}: checking jellyfin.\n[EVENT:info:jellyfin] ok ${i}` },
      ],
    },
    parent_tool_use_id: null,
    session_id: SESSION,
  })}\n`;
}

/** The stream as a sequence of pieces; the huge line's body is one reused 64 KiB block. */
function* pieces(before, after) {
  for (let i = 0; i < before; i += 1) yield Buffer.from(normalLine(i));
  const head = Buffer.from(
    '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_huge",' +
      '"type":"tool_result","content":"',
  );
  const tail = Buffer.from(
    `","is_error":false}]},"parent_tool_use_id":null,"session_id":"${SESSION}"}`,
  );
  const logLine =
    '2026-11-21T03:00:00.000Z atlas jellyfin[812]: INFO GET /api/v1/items 200 12ms\\n';
  const block = Buffer.from(
    logLine.repeat(Math.ceil(CHUNK_BYTES / logLine.length)).slice(0, CHUNK_BYTES),
  );
  yield head;
  let body = HUGE_LINE_BYTES - head.length - tail.length;
  while (body > 0) {
    const n = Math.min(body, block.length);
    yield n === block.length ? block : block.subarray(0, n);
    body -= n;
  }
  yield Buffer.concat([tail, Buffer.from('\n')]);
  for (let i = 0; i < after; i += 1) yield Buffer.from(normalLine(before + 1 + i));
}

/** Re-cuts pieces into fresh 64 KiB chunks, as a pipe or file read would deliver them. */
function* chunks(source) {
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let used = 0;
  for (const piece of source) {
    let offset = 0;
    while (offset < piece.length) {
      const n = piece.copy(chunk, used, offset);
      used += n;
      offset += n;
      if (used === CHUNK_BYTES) {
        yield chunk;
        chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        used = 0;
      }
    }
  }
  if (used > 0) yield chunk.subarray(0, used);
}

/**
 * The child's peak RSS in KiB. process.resourceUsage().maxRSS is reported too, but on Linux it
 * also carries the parent's RSS at spawn time (ru_maxrss survives fork and execve), so the
 * child's own high-water mark, VmHWM, is the peak used where /proc exists.
 */
function peakRss() {
  const maxRssKiB = process.resourceUsage().maxRSS;
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return { kib: Number(m[1]), source: 'VmHWM', maxRssKiB };
  } catch {
    // Not Linux: maxRSS is all there is.
  }
  return { kib: maxRssKiB, source: 'maxRSS', maxRssKiB };
}

/** Consumes the same chunks without parsing: how much RSS the chunk source alone costs. */
function control() {
  globalThis.gc?.();
  globalThis.gc?.();
  const baselineRssKiB = Math.round(process.memoryUsage().rss / 1024);
  let totalBytes = 0;
  for (const chunk of chunks(pieces(3, 3))) totalBytes += chunk.length;
  process.stdout.write(`${JSON.stringify({ totalBytes, baselineRssKiB, peak: peakRss() })}\n`);
}

async function child() {
  const { DEFAULT_MAX_LINE_BYTES, StreamParser } = await import('../dist/stream/index.js');
  const before = 3;
  const after = 3;
  let messagesBefore = 0;
  let messagesAfter = 0;
  const skipped = [];
  const parser = new StreamParser({
    onMessage: () => {
      if (parser.stats.oversizedLines === 0) messagesBefore += 1;
      else messagesAfter += 1;
    },
    onSkipped: (reason, bytes) => skipped.push({ reason, bytes }),
  });
  globalThis.gc?.();
  globalThis.gc?.();
  const baselineRssKiB = Math.round(process.memoryUsage().rss / 1024);
  const baselinePeak = peakRss();
  const start = performance.now();
  let totalBytes = 0;
  for (const chunk of chunks(pieces(before, after))) {
    totalBytes += chunk.length;
    parser.write(chunk);
  }
  parser.end();
  const elapsedMs = performance.now() - start;
  const peak = peakRss();
  process.stdout.write(
    `${JSON.stringify({
      maxLineBytes: DEFAULT_MAX_LINE_BYTES,
      hugeLineBytes: HUGE_LINE_BYTES,
      totalBytes,
      elapsedMs,
      baselineRssKiB,
      baselinePeak,
      peak,
      oversizedLines: parser.stats.oversizedLines,
      skipped,
      messagesBefore,
      messagesAfter,
      expectedBefore: before,
      expectedAfter: after,
    })}\n`,
  );
}

function spawnChild(args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`huge-line child did not finish within ${CHILD_TIMEOUT_MS / 1000} s`));
    }, CHILD_TIMEOUT_MS);
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`huge-line child exited with ${signal ?? `code ${code}`}`));
        return;
      }
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch (err) {
        reject(new Error(`huge-line child printed no JSON result: ${err.message}`));
      }
    });
  });
}

export async function runHugeLineBench({ add, fail, log }) {
  log(`spawning child: feeding a stream with one ${HUGE_LINE_BYTES / 1e6} MB line...`);
  const r = await spawnChild([]);
  log('spawning control child: same chunks, no parser...');
  const c = await spawnChild(['--control']);
  const mb = (kib) => (kib * 1024) / 1e6;
  const checks =
    `${r.oversizedLines} oversized line (${r.skipped.map((s) => s.bytes).join(', ')} bytes), ` +
    `${r.messagesBefore}/${r.expectedBefore} messages before and ${r.messagesAfter}/${r.expectedAfter} after it`;
  add({
    name: 'huge_line.peak_rss',
    value: round(mb(r.peak.kib), 1),
    unit: 'MB',
    notes:
      `child peak RSS (${r.peak.source}; resourceUsage().maxRSS ${mb(r.peak.maxRssKiB).toFixed(1)} MB), ` +
      `${(r.totalBytes / 1e6).toFixed(1)} MB in 64 KiB chunks, cap ${r.maxLineBytes / 2 ** 20} MiB, ` +
      `${(r.elapsedMs / 1000).toFixed(2)} s; ${checks}`,
  });
  add({
    name: 'huge_line.rss_delta',
    value: round(mb(r.peak.kib - r.baselineRssKiB), 1),
    unit: 'MB',
    notes:
      `peak minus RSS before feeding (${mb(r.baselineRssKiB).toFixed(1)} MB; ` +
      `peak before feeding ${mb(r.baselinePeak.kib).toFixed(1)} MB)`,
  });
  add({
    name: 'huge_line.control_delta',
    value: round(mb(c.peak.kib - c.baselineRssKiB), 1),
    unit: 'MB',
    notes:
      `control child: same fresh 64 KiB chunks consumed without a parser (peak ${mb(c.peak.kib).toFixed(1)} MB); ` +
      'the chunk-garbage share of rss_delta',
  });
  if (r.oversizedLines !== 1) fail(`huge-line: expected 1 oversized line, got ${r.oversizedLines}`);
  if (r.messagesBefore !== r.expectedBefore || r.messagesAfter !== r.expectedAfter) {
    fail(`huge-line: messages lost around the huge line: ${checks}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const main = process.argv.includes('--control') ? async () => control() : child;
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
