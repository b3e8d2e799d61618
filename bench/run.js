/**
 * Runs the benchmark suite (npm run bench) and prints one table of results.
 *
 *   node --expose-gc bench/run.js [--only NAME[,NAME]] [--json FILE]
 *
 * Parts: parser, huge-line, memory-store, runner, serve-rss, dashboard, session-page, embeddings,
 * search-quality, search-speed, conversations, graph, graph-index, export, migrate-store and fleet
 * (these two start a PostgreSQL server). A failing part prints its error; the run still
 * prints what it has, then exits non-zero. Progress goes to stderr, the table to stdout.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';

import { runConversationsBench } from './conversations.js';
import { runDashboardBench } from './dashboard.js';
import { runEmbeddingsBench } from './embeddings.js';
import { runExportBench } from './export.js';
import { runFleetBench } from './fleet.js';
import { runGraphBench } from './graph.js';
import { runGraphIndexBench } from './graph-index.js';
import { runSearchQualityBench } from './search-quality.js';
import { runSearchSpeedBench } from './search-speed.js';
import { runHugeLineBench } from './huge-line.js';
import { runMemoryStoreBench } from './memory-store.js';
import { runMigrateStoreBench } from './migrate-store.js';
import { runParserBench } from './parser.js';
import { runRunnerBench } from './runner.js';
import { runServeRssBench } from './serve-rss.js';
import { runSessionPageBench } from './session-page.js';
import { formatTable } from './table.js';

// Listed in table order; `runOrder` puts huge-line first, while this process is still small:
// on Linux a child's resourceUsage().maxRSS starts at its parent's RSS at spawn time.
const PARTS = [
  { name: 'parser', runOrder: 2, run: runParserBench },
  { name: 'huge-line', runOrder: 1, run: runHugeLineBench },
  { name: 'memory-store', runOrder: 3, run: runMemoryStoreBench },
  { name: 'runner', runOrder: 4, run: runRunnerBench },
  { name: 'serve-rss', runOrder: 5, run: runServeRssBench },
  { name: 'dashboard', runOrder: 6, run: runDashboardBench },
  { name: 'session-page', runOrder: 15, run: runSessionPageBench },
  { name: 'embeddings', runOrder: 7, run: runEmbeddingsBench },
  { name: 'search-quality', runOrder: 8, run: runSearchQualityBench },
  { name: 'search-speed', runOrder: 9, run: runSearchSpeedBench },
  { name: 'conversations', runOrder: 10, run: runConversationsBench },
  { name: 'graph', runOrder: 11, run: runGraphBench },
  { name: 'graph-index', runOrder: 15, run: runGraphIndexBench },
  { name: 'export', runOrder: 12, run: runExportBench },
  { name: 'migrate-store', runOrder: 13, run: runMigrateStoreBench },
  { name: 'fleet', runOrder: 14, run: runFleetBench },
];
const USAGE = `usage: node --expose-gc bench/run.js [--only ${PARTS.map((p) => p.name).join('|')}] [--json FILE]`;

function parseArgs(argv) {
  const opts = { only: null, json: null };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s) : [arg];
    const value = () => {
      const v = inline ?? argv[(i += 1)];
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--json') opts.json = value();
    else if (flag === '--only') {
      const names = value().split(',');
      for (const n of names) {
        if (!PARTS.some((p) => p.name === n)) throw new Error(`unknown part "${n}"`);
      }
      opts.only = [...(opts.only ?? []), ...names];
    } else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument "${arg}"`);
  }
  return opts;
}

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`bench: ${err.message}\n${USAGE}`);
    process.exit(2);
  }
  if (typeof globalThis.gc !== 'function') {
    log('warning: run with node --expose-gc for a GC between measurements');
  }
  const rowsByPart = new Map(PARTS.map((p) => [p.name, []]));
  const failures = [];
  const started = performance.now();
  for (const part of [...PARTS].sort((a, b) => a.runOrder - b.runOrder)) {
    if (opts.only && !opts.only.includes(part.name)) continue;
    const results = rowsByPart.get(part.name);
    log(`== ${part.name}`);
    const partStart = performance.now();
    const ctx = {
      log: (m) => log(`${part.name}: ${m}`),
      add: (row) => results.push(row),
      fail: (message) => {
        failures.push(message);
        results.push({
          name: `${part.name}.check`,
          value: null,
          unit: '',
          notes: `FAILED: ${message}`,
        });
        log(`FAIL ${message}`);
      },
    };
    try {
      await part.run(ctx);
    } catch (err) {
      failures.push(`${part.name}: ${err.message}`);
      results.push({ name: part.name, value: null, unit: '', notes: `FAILED: ${err.message}` });
      log(`FAIL ${part.name} threw:\n${err.stack ?? err}`);
    }
    log(`${part.name} done in ${((performance.now() - partStart) / 1000).toFixed(1)} s`);
  }
  log(`all done in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const results = [...rowsByPart.values()].flat();
  console.log(formatTable(results));
  if (opts.json) {
    const report = {
      generated_at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      results,
    };
    try {
      mkdirSync(dirname(opts.json), { recursive: true });
      writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
      log(`wrote ${opts.json}`);
    } catch (err) {
      failures.push(`writing ${opts.json}: ${err.message}`);
    }
  }
  if (failures.length > 0) {
    console.error(`\n${failures.length} failure(s):`);
    for (const f of failures) console.error(`  - ${f}`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
