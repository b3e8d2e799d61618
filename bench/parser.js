/**
 * Part (a): parser throughput on a generated 200 MB stream-json file, held in memory and fed
 * in 64 KiB chunks. Compares watchkeeper's StreamParser (with marker extraction) against a
 * bare split + JSON.parse baseline and the ndjson package.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import ndjson from 'ndjson';

import { markersFromMessage, StreamParser } from '../dist/stream/index.js';
import { DEFAULT_SEED, generateStream } from './generate-stream.js';
import { mbPerSecond, round, summarize } from './stats.js';
import { timed, timedSync } from './timing.js';

const TARGET_BYTES = 200e6;
const CHUNK_BYTES = 64 * 1024;
const WARMUP_RUNS = 1;
const MEASURED_RUNS = 5;

function watchkeeper(chunks) {
  let markers = 0;
  let rejected = 0;
  const parser = new StreamParser({
    onMessage: (message) => {
      for (const marker of markersFromMessage(message)) {
        if (marker.kind === 'rejected') rejected += 1;
        else markers += 1;
      }
    },
  });
  for (const chunk of chunks) parser.write(chunk);
  parser.end();
  return { messages: parser.stats.messages, markers, rejected, stats: parser.stats };
}

// The whole buffer becomes one string; with any character above U+00FF in it (the generated
// text has some, like real tool output) V8 stores it, and every slice of it, as two-byte.
function bare(buf) {
  let messages = 0;
  for (const line of buf.toString('utf8').split('\n')) {
    if (line.length === 0) continue;
    JSON.parse(line);
    messages += 1;
  }
  return { messages };
}

async function ndjsonParse(chunks) {
  const stream = ndjson.parse();
  let messages = 0;
  stream.on('data', () => {
    messages += 1;
  });
  const ended = new Promise((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  for (const chunk of chunks) {
    if (!stream.write(chunk)) await once(stream, 'drain');
  }
  stream.end();
  await ended;
  return { messages };
}

export async function runParserBench({ add, fail, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-'));
  const file = join(dir, 'stream.ndjson');
  let buf;
  let expected;
  try {
    log(`generating ${TARGET_BYTES / 1e6} MB stream (seed ${DEFAULT_SEED})...`);
    const gen = await timed(() => generateStream(file, { targetBytes: TARGET_BYTES }));
    expected = gen.value;
    buf = readFileSync(file);
    log(
      `  ${(buf.length / 1e6).toFixed(1)} MB, ${expected.lines} lines in ${(gen.ms / 1000).toFixed(1)} s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  add({
    name: 'stream.size',
    value: round(buf.length / 1e6, 1),
    unit: 'MB',
    notes:
      `${expected.lines} lines, ${expected.steps} Bash steps, ${expected.markers} markers, ` +
      `${expected.arrayResults} array tool_results, ${expected.subagentLines} subagent lines; seed ${DEFAULT_SEED}`,
  });

  const chunks = [];
  for (let i = 0; i < buf.length; i += CHUNK_BYTES) chunks.push(buf.subarray(i, i + CHUNK_BYTES));

  const contenders = [
    { key: 'watchkeeper', run: () => timedSync(() => watchkeeper(chunks)) },
    { key: 'bare', run: () => timedSync(() => bare(buf)) },
    { key: 'ndjson', run: () => timed(() => ndjsonParse(chunks)) },
  ];
  const times = Object.fromEntries(contenders.map((c) => [c.key, []]));
  const seen = {};
  // Rounds interleave the contenders so drift (thermal, other load) hits all of them alike.
  for (let round_ = 0; round_ < WARMUP_RUNS + MEASURED_RUNS; round_ += 1) {
    const warm = round_ < WARMUP_RUNS;
    for (const c of contenders) {
      log(
        `parsing with ${c.key} (${warm ? 'warm-up' : `run ${round_ - WARMUP_RUNS + 1}/${MEASURED_RUNS}`})...`,
      );
      const { ms, value } = await c.run();
      seen[c.key] = value;
      if (!warm) times[c.key].push(ms);
    }
  }

  const rate = (key) => {
    const s = summarize(times[key].map((ms) => mbPerSecond(buf.length, ms)));
    return { ...s, range: `${s.min.toFixed(1)}..${s.max.toFixed(1)}` };
  };
  const wk = rate('watchkeeper');
  const base = rate('bare');
  const nd = rate('ndjson');
  const runs = `median of ${MEASURED_RUNS} after ${WARMUP_RUNS} warm-up`;
  const w = seen.watchkeeper;
  add({
    name: 'parser.watchkeeper',
    value: round(wk.median, 1),
    unit: 'MB/s',
    notes:
      `StreamParser + markersFromMessage, 64 KiB chunks; ${runs} (${wk.range}); ` +
      `${w.messages} messages, ${w.markers} markers`,
  });
  add({
    name: 'parser.bare',
    value: round(base.median, 1),
    unit: 'MB/s',
    notes: `whole buffer toString + split('\\n') + JSON.parse; ${runs} (${base.range}); ${seen.bare.messages} messages`,
  });
  add({
    name: 'parser.ndjson',
    value: round(nd.median, 1),
    unit: 'MB/s',
    notes: `ndjson@2.0.0 parse() stream, 64 KiB chunks; ${runs} (${nd.range}); ${seen.ndjson.messages} messages`,
  });
  add({
    name: 'parser.ratio',
    value: round(wk.median / base.median, 3),
    unit: 'x',
    notes: 'watchkeeper MB/s / bare MB/s (medians)',
  });

  const counts = contenders.map((c) => `${c.key}=${seen[c.key].messages}`).join(', ');
  if (new Set(contenders.map((c) => seen[c.key].messages)).size !== 1) {
    fail(`parser: message counts differ: ${counts}`);
  } else if (w.messages !== expected.lines) {
    fail(
      `parser: all parsers saw ${w.messages} messages but the generator wrote ${expected.lines} lines`,
    );
  }
  if (w.markers !== expected.markers || w.rejected !== 0) {
    fail(
      `parser: watchkeeper found ${w.markers} markers (${w.rejected} rejected), generator wrote ${expected.markers}`,
    );
  }
  const s = w.stats;
  if (
    s.oversizedLines + s.nonJsonLines + s.invalidUtf8Lines + s.unknownTypes + s.blankLines !==
    0
  ) {
    fail(`parser: watchkeeper tolerated oddities in a clean stream: ${JSON.stringify(s)}`);
  }
}
