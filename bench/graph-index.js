/**
 * `graph index` on a huge Claude Code transcript (npm run bench -- --only graph-index): a
 * generated session of BENCH_GRAPH_INDEX_LINES lines (default 40,000; generate-transcript.js)
 * indexed by the real command (`watchkeeper graph index FILE --json`, a fresh data folder each
 * time), with embeddings off and with the default local model, in lines per second beside the
 * stream parser's own lines per second on the same file (measured in the same run), so that the
 * graph's cost reads as a multiple of merely reading the file.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

import { StreamParser } from '../dist/stream/index.js';
import { DEFAULT_TRANSCRIPT_SEED, generateTranscript } from './generate-transcript.js';
import { median, round } from './stats.js';
import { timedSync } from './timing.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));
const LINES = Number(process.env.BENCH_GRAPH_INDEX_LINES ?? 40_000);
/** Which embeddings to index with (comma-separated): `off`, `local`. */
const MODES = (process.env.BENCH_GRAPH_INDEX_EMBEDDINGS ?? 'off,local').split(',');
const CHUNK_BYTES = 64 * 1024;
const PARSER_RUNS = 3;

/**
 * CPU seconds of this process's finished children (Linux: /proc/self/stat cutime + cstime),
 * worker threads included; null elsewhere. Beside the wall clock, it shows what a run cost
 * whatever else the machine was doing.
 */
function childrenCpuSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5), counted from after the command name (field 3 is index 0).
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

function parseAll(chunks) {
  const parser = new StreamParser({ onMessage: () => {} });
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return parser.stats.messages;
}

/** Runs `watchkeeper graph index FILE --json` in a fresh data folder; its report and time. */
function indexOnce(file, embeddings) {
  const dataDir = mkdtempSync(join(tmpdir(), 'wk-bench-graph-index-'));
  const env = {
    PATH: process.env.PATH,
    HOME: dataDir,
    WATCHKEEPER_DATA_DIR: dataDir,
    ...(embeddings === 'off' ? { WATCHKEEPER_EMBEDDINGS: 'off' } : {}),
  };
  const cpuBefore = childrenCpuSeconds();
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'graph', 'index', file, '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      rmSync(dataDir, { recursive: true, force: true });
      if (code !== 0) {
        const tail = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' | ');
        reject(new Error(`graph index exited ${code}: ${tail}`));
        return;
      }
      const cpuAfter = childrenCpuSeconds();
      const cpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
      resolve({ ms, cpu, report: JSON.parse(Buffer.concat(out).toString('utf8')) });
    });
  });
}

export async function runGraphIndexBench({ add, fail, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'wk-bench-graph-index-'));
  try {
    const file = join(dir, 'projects', '-srv-homelab', 'huge-session.jsonl');
    log(`generating a ${LINES}-line transcript (seed ${DEFAULT_TRANSCRIPT_SEED})...`);
    mkdirSync(join(dir, 'projects', '-srv-homelab'), { recursive: true });
    const written = generateTranscript(file, { lines: LINES });
    const buf = readFileSync(file);
    add({
      name: 'graph_index.transcript',
      value: written.lines,
      unit: 'lines',
      notes: `${round(buf.length / 1e6, 1)} MB: ${written.prompts} prompts, ${written.textBlocks} text blocks, ${written.toolCalls} tool calls; seed ${DEFAULT_TRANSCRIPT_SEED}`,
    });

    const chunks = [];
    for (let i = 0; i < buf.length; i += CHUNK_BYTES) chunks.push(buf.subarray(i, i + CHUNK_BYTES));
    const times = [];
    let messages = 0;
    for (let i = 0; i < PARSER_RUNS; i += 1) {
      const { ms, value } = timedSync(() => parseAll(chunks));
      times.push(ms);
      messages = value;
    }
    const parserRate = written.lines / (median(times) / 1000);
    add({
      name: 'graph_index.parser_lines_per_s',
      value: round(parserRate, 0),
      unit: 'lines/s',
      notes: `StreamParser over the same file in 64 KiB chunks, median of ${PARSER_RUNS}; ${messages} messages`,
    });
    if (messages !== written.lines)
      fail(`graph-index: the parser saw ${messages} of ${written.lines} lines`);

    const seen = new Map();
    for (const mode of MODES) {
      log(`graph index with embeddings ${mode}...`);
      const { ms, cpu, report } = await indexOnce(file, mode);
      const t = report.totals;
      const rate = t.lines / (ms / 1000);
      seen.set(mode, t);
      add({
        name: `graph_index.${mode === 'off' ? 'embeddings_off' : 'local_model'}_lines_per_s`,
        value: round(rate, 1),
        unit: 'lines/s',
        notes:
          `${t.lines} lines in ${round(ms / 1000, 1)} s (process start to exit${cpu === null ? '' : `, ${round(cpu, 1)} s of CPU`}; parser ${round(parserRate / rate, 0)}x faster): ` +
          `${t.turns} turns, ${t.ideas} ideas, ${t.spans} spans, ${t.relations} relations`,
      });
      if (t.lines !== written.lines)
        fail(`graph-index: indexed ${t.lines} of ${written.lines} lines`);
    }
    const ideas = new Set([...seen.values()].map((t) => t.ideas));
    if (ideas.size > 1)
      fail(`graph-index: the ideas differ between embeddings modes (${[...ideas]})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
