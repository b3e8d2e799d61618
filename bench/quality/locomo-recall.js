/**
 * LoCoMo turn recall through the public paths: every turn imported as a memory of its
 * conversation's service (`POST /api/v1/memories/import`), each question asked with
 * `GET /api/v1/memories/search?q=&limit=10&service=` of a `serve` with the local model (hybrid)
 * and one with embeddings off; the conversations indexed as transcripts (`watchkeeper graph
 * index DIR`) and asked with `GET /api/v1/graph/remember?session=` (its ideas ranked by their
 * score, the default budget); and the FTS5 baseline over the same turns. The three run side by
 * side. Conversations 0, 1, 2, 4, 5 are the development split, the
 * others held out.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { questions, writeTranscripts } from '../locomo.js';
import { cli } from './cli.js';
import { fts5Index } from './fts5-baseline.js';
import { importDocs } from './import-file.js';
import { recallAt } from './metrics.js';
import { benchEnv, startServe } from './serve-process.js';

export const DEV_CONVERSATIONS = [0, 1, 2, 4, 5];
const splitOf = (index) => (DEV_CONVERSATIONS.includes(index) ? 'dev' : 'heldout');
const serviceOf = (c) => c.session;

function record(t, path, c, q, ranked) {
  for (const group of [String(q.category), q.category <= 4 ? 'all' : null]) {
    if (group === null) continue;
    t.add(path, splitOf(c.index), group, {
      r5: recallAt(ranked, q.gold, 5),
      r10: recallAt(ranked, q.gold, 10),
    });
  }
}

async function askSearch(t, path, serve, convs) {
  for (const c of convs) {
    for (const q of c.questions) {
      const answer = await serve.get('/memories/search', {
        q: q.question,
        limit: 10,
        service: serviceOf(c),
      });
      record(
        t,
        path,
        c,
        q,
        answer.results.map((r) => r.source_ref),
      );
    }
  }
}

async function askGraph(t, serve, convs) {
  for (const c of convs) {
    for (const q of c.questions) {
      const answer = await serve.get('/graph/remember', { q: q.question, session: c.session });
      const ideas = answer.groups.flatMap((g) => g.ideas).sort((a, b) => b.score - a.score);
      const dias = [];
      for (const i of ideas) {
        const dia = c.diaOfLine.get(i.source_line);
        const ref = `${c.session} ${dia}`;
        if (dia && !dias.includes(ref)) dias.push(ref);
      }
      record(t, 'graph', c, q, dias);
    }
  }
}

/**
 * Fills `t` (paths hybrid, off, graph, fts5) for the conversations at `indexes`; `paths` names
 * those of the product to run (the slice runs `off` alone).
 */
export async function locomoRecall(ctx, t, data, dir, indexes, paths = ['graph', 'hybrid', 'off']) {
  const picked = indexes.map((i) => [i, data.locomo[i]]);
  const projects = join(dir, 'projects');
  const convs = writeTranscripts(
    picked.map(([, c]) => c),
    projects,
  ).map((c, n) => {
    const index = picked[n][0];
    const conv = { ...c, index };
    conv.questions = questions({ ...conv, index }, data.audit).map((q) => ({
      ...q,
      gold: q.gold.map((g) => `${c.session} ${g}`),
    }));
    return conv;
  });
  const docs = convs.flatMap((c) =>
    c.turns.map((turn) => ({
      service: serviceOf(c),
      text: turn.text,
      ref: `${c.session} ${turn.dia}`,
    })),
  );
  const base = fts5Index(docs.map((d) => ({ id: d.ref, text: d.text, group: d.service })));
  for (const c of convs)
    for (const q of c.questions) record(t, 'fts5', c, q, base.search(q.question, 10, serviceOf(c)));
  base.close();

  const done = (what) => ctx.log(`LoCoMo ${what} done`);
  const env = benchEnv(join(dir, 'graph'), 'local');
  mkdirSync(env.WATCHKEEPER_DATA_DIR, { recursive: true });
  const lanes = [
    // The graph's store is its own, so that its indexing runs beside the memories' import.
    paths.includes('graph') &&
      (async () => {
        ctx.log('LoCoMo: graph index...');
        await cli(env, ['graph', 'index', projects, '--json']);
        done('graph index');
        const serve = await startServe(env.WATCHKEEPER_DATA_DIR, 'local');
        try {
          await serve.untilHybrid('probe');
          await askGraph(t, serve, convs);
          done('graph remember');
        } finally {
          await serve.close();
        }
      }),
    ...[
      ['hybrid', 'local'],
      ['off', 'off'],
    ].map(
      ([path, embeddings]) =>
        paths.includes(path) &&
        (async () => {
          const dataDir = join(dir, path);
          mkdirSync(dataDir, { recursive: true });
          const serve = await startServe(dataDir, embeddings);
          try {
            if (path === 'hybrid') await serve.untilHybrid('probe');
            ctx.log(`LoCoMo ${path}: importing ${docs.length} turns...`);
            // A file per conversation: one request stays well inside fetch's time limit.
            for (const c of convs)
              await importDocs(
                serve,
                docs.filter((d) => d.service === serviceOf(c)),
              );
            done(`${path} import`);
            await askSearch(t, path, serve, convs);
            done(`${path} search`);
          } finally {
            await serve.close();
          }
        }),
    ),
  ];
  await Promise.all(lanes.filter(Boolean).map((lane) => lane()));
  return {
    turns: docs.length,
    questions: convs.reduce((n, c) => n + c.questions.length, 0),
  };
}
