// Offline fusion tuning data: every candidate with evidence (explain=1) through the real serve.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadLocomo, questions, writeTranscripts } from './locomo.js';
import { importDocs } from './quality/import-file.js';
import { loadOpsSet, opsDocs } from './quality/ops-retrieval.js';
import { startServe } from './quality/serve-process.js';
const mode = process.env.OFF ? 'off' : 'local';
const dir = mkdtempSync('/tmp/tune/s-');
const serve = await startServe(dir, mode);
if (mode === 'local') await serve.untilHybrid('probe');
const keep = (a) => [...a.results, ...(a.cut ?? []).filter((c) => c.reason !== 'no evidence')].map((r) => ({ ref: r.source_ref, ...r.why }));
const set = loadOpsSet();
await importDocs(serve, opsDocs(set).map((d) => ({ ...d, service: d.service })));
const ops = [];
for (const q of set.queries) ops.push({ q, cands: keep(await serve.get('/memories/search', { q: q.query, limit: 50, explain: 1 })) });
const unrelated = [];
const data = loadLocomo();
for (const q of data.locomo.flatMap((c) => c.qa.map((x) => x.question)).slice(0, 200)) unrelated.push(keep(await serve.get('/memories/search', { q, limit: 50, explain: 1 })));
writeFileSync(`/tmp/tune/ops-${mode}.json`, JSON.stringify({ ops, unrelated }));
console.log('ops done');
const convs = writeTranscripts(data.locomo, join(dir, 'p'));
const loco = [];
for (const c of convs) {
  const docs = c.turns.map((t) => ({ service: c.session, text: t.text, ref: `${c.session} ${t.dia}` }));
  await importDocs(serve, docs);
}
console.log('imported');
for (const c of convs) {
  for (const q of questions(c, data.audit)) {
    if (q.category > 4) continue;
    const a = await serve.get('/memories/search', { q: q.question, limit: 50, service: c.session, explain: 1 });
    loco.push({ split: [0, 1, 2, 4, 5].includes(c.index) ? 'dev' : 'heldout', gold: q.gold.map((g) => `${c.session} ${g}`), cands: keep(a) });
  }
}
writeFileSync(`/tmp/tune/loco-${mode}.json`, JSON.stringify(loco));
await serve.close();
console.log('done');
process.exit(0);
