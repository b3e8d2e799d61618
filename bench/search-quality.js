/**
 * Retrieval, dedup and verify quality as a user reaches them (npm run bench -- --only
 * search-quality): memories brought in with `watchkeeper import`, searched through `serve`'s
 * API, judged through `POST /api/v1/memories`, verified with the `memory_verify` MCP tool; hybrid
 * is the real local model, off is WATCHKEEPER_EMBEDDINGS=off. No internal switch is used. Each
 * figure is printed for the development split (value/dev) and the held-out one, beside a plain
 * FTS5 BM25 baseline built in the same run (bench/quality/).
 *
 * BENCH_SEARCH_QUALITY_SLICE=1 runs the small slice `npm test` guards
 * (test/bench/search-quality-slice.test.ts): a third of the ops set (sliceOf), and LoCoMo's first
 * development conversation with embeddings off.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { loadLocomo } from './locomo.js';
import { judgePairs, loadDedupSets } from './quality/dedup.js';
import { importDocs } from './quality/import-file.js';
import { DEV_CONVERSATIONS, locomoRecall } from './quality/locomo-recall.js';
import { tally } from './quality/metrics.js';
import { askOps, loadOpsSet, opsBaseline, opsDocs } from './quality/ops-retrieval.js';
import { qualityRows } from './quality/rows.js';
import { benchEnv, startServe } from './quality/serve-process.js';
import { loadClaims, verifyClaims } from './quality/verify.js';

const MODES = [
  ['hybrid', 'local'],
  ['off', 'off'],
];

/** Ops retrieval and verify on the imported ops memories; dedup on an empty store beside. */
async function opsMode(ctx, t, dir, path, embeddings, sets) {
  const opsDir = join(dir, `ops-${path}`);
  const dedupDir = join(dir, `dedup-${path}`);
  mkdirSync(opsDir);
  mkdirSync(dedupDir);
  const env = benchEnv(opsDir, embeddings);
  const retrieval = async () => {
    const serve = await startServe(opsDir, embeddings);
    try {
      if (embeddings !== 'off') await serve.untilHybrid('probe');
      await importDocs(serve, opsDocs(sets.ops));
      await askOps(t, path, serve, sets.ops, sets.unrelated);
    } finally {
      await serve.close();
    }
  };
  const dedup = async () => {
    const serve = await startServe(dedupDir, embeddings);
    try {
      if (embeddings !== 'off') await serve.untilHybrid('probe');
      await judgePairs(t, path, serve, sets.pairs);
    } finally {
      await serve.close();
    }
  };
  ctx.log(`${path}: ${sets.ops.queries.length} ops queries, ${sets.pairs.length} dedup pairs...`);
  await Promise.all([retrieval(), dedup()]);
  ctx.log(`${path}: ${sets.claims.length} verify claims...`);
  await verifyClaims(t, path, env, sets.claims);
}

/**
 * The slice: the memories of the set's first SLICE_SERVICES services, the development queries
 * all of whose targets are among them, the development claims about them (or about nothing), and
 * the development halves of the new and the blind dedup pairs.
 */
const SLICE_SERVICES = 20;

function sliceOf(sets) {
  const services = [...new Set(sets.ops.memories.map((m) => m.service))].slice(0, SLICE_SERVICES);
  const memories = sets.ops.memories.filter((m) => services.includes(m.service));
  const ids = new Set(memories.map((m) => m.id));
  return {
    ops: {
      ...sets.ops,
      memories,
      queries: sets.ops.queries.filter(
        (q) => q.split === 'dev' && q.targets.every((id) => ids.has(id)),
      ),
    },
    pairs: sets.pairs.filter((p) => p.split === 'dev' && (p.fresh || p.blind)),
    claims: sets.claims.filter((c) => c.split === 'dev' && (c.about === null || ids.has(c.about))),
  };
}

export async function runSearchQualityBench(ctx) {
  const slice = process.env.BENCH_SEARCH_QUALITY_SLICE === '1';
  const ops = loadOpsSet();
  const all = { ops, pairs: loadDedupSets(ops), claims: loadClaims() };
  const locomo = loadLocomo();
  const sets = slice ? sliceOf(all) : all;
  // The first 200 LoCoMo questions, asked of the ops memories: what surfaces should be nothing.
  sets.unrelated = slice
    ? []
    : (locomo?.locomo ?? []).flatMap((c) => c.qa.map((q) => q.question)).slice(0, 200);
  const t = tally();
  const started = performance.now();
  const timed = {
    log: (m) => ctx.log(`${m} (at ${((performance.now() - started) / 1000).toFixed(1)} s)`),
  };
  const dir = mkdtempSync(join(tmpdir(), 'wk-bench-quality-'));
  const facts = { slice };
  try {
    opsBaseline(t, sets.ops);
    await Promise.all(
      MODES.map(([path, embeddings]) => opsMode(timed, t, dir, path, embeddings, sets)),
    );
    if (locomo && slice) {
      // The slice: the first development conversation, searched with embeddings off.
      const [conv] = DEV_CONVERSATIONS;
      facts.locomo = await locomoRecall(timed, t, locomo, join(dir, 'locomo'), [conv], ['off']);
    } else if (locomo) {
      const convs = locomo.locomo.map((_, i) => i);
      facts.locomo = await locomoRecall(timed, t, locomo, join(dir, 'locomo'), convs);
    } else ctx.log('LoCoMo not found beside the repo (../shared/bench-data): skipped');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const row of qualityRows(t, sets, facts)) ctx.add(row);
}
