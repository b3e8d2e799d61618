/**
 * A regression guard on recall, dedup and verify quality: the search-quality bench's small slice
 * (bench/search-quality.js with BENCH_SEARCH_QUALITY_SLICE=1: a third of the ops set's memories
 * and the development queries and claims about them, the development halves of the new and the
 * blind dedup pairs, with the local model and with embeddings off; LoCoMo's first development conversation
 * with embeddings off) run the way the bench runs it, through `serve`'s API and the MCP
 * server. The model is deterministic, so the figures are too; the test asserts floors a little
 * under today's figures, never exact ones, so that a change for the better passes and a
 * regression does not.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, describe, expect, it } from 'vitest';

import { REPO } from '../helpers/mcp.js';

const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-quality-slice-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runSlice(): Promise<Map<string, number>> {
  const out = join(dir, 'slice.json');
  await promisify(execFile)(
    process.execPath,
    ['bench/run.js', '--only', 'search-quality', '--json', out],
    { cwd: REPO, env: { ...process.env, BENCH_SEARCH_QUALITY_SLICE: '1' } },
  );
  const report = JSON.parse(readFileSync(out, 'utf8')) as {
    results: { name: string; value: number }[];
  };
  return new Map(report.results.map((r) => [r.name, r.value]));
}

describe('the search-quality slice', () => {
  it('keeps search, dedup and verify at or above their floors', { timeout: 240_000 }, async () => {
    const f = await runSlice();
    const at = (name: string): number => {
      const v = f.get(name);
      if (typeof v !== 'number') throw new Error(`the slice printed no ${name}`);
      return v;
    };
    // Search as a user reaches it, beside the FTS5 baseline of the same run.
    expect(at('ops.fts5.MRR')).toBeGreaterThan(0.3);
    expect(at('ops.hybrid.MRR')).toBeGreaterThanOrEqual(at('ops.fts5.MRR') - 0.05);
    expect(at('ops.hybrid.recall@5')).toBeGreaterThanOrEqual(0.48);
    expect(at('ops.off.MRR')).toBeGreaterThanOrEqual(0.28);
    // A LoCoMo conversation: a turn is searched with the turns beside it (its context), which
    // lifts recall well above the words of each turn alone.
    expect(at('locomo.off.cat1-4.recall@10')).toBeGreaterThanOrEqual(
      at('locomo.fts5.cat1-4.recall@10') + 0.04,
    );
    // Dedup (% of pairs judged as a careful reader would).
    for (const mode of ['off', 'hybrid']) {
      expect(at(`dedup.${mode}.paraphrase`)).toBeGreaterThanOrEqual(80);
      expect(at(`dedup.${mode}.same-value`)).toBeGreaterThanOrEqual(80);
      expect(at(`dedup.${mode}.same-service-distinct`)).toBeGreaterThanOrEqual(80);
      expect(at(`dedup.${mode}.new-pairs`)).toBeGreaterThanOrEqual(90);
    }
    // Pairs written without sight of the rules: changes said in many ways ("every 12h" to "once
    // a week", "was moved off nas01") supersede, values of other things stay apart.
    expect(at('dedup.hybrid.blind-pairs')).toBeGreaterThanOrEqual(66);
    expect(at('dedup.off.blind-pairs')).toBeGreaterThanOrEqual(53);
    expect(at('dedup.hybrid.expect-supersede')).toBeGreaterThanOrEqual(85);
    expect(at('dedup.hybrid.expect-apart')).toBeGreaterThanOrEqual(75);
    // Verify: agreement with a careful reader, and nothing confirmed that memory does not say.
    expect(at('verify.hybrid.agreement')).toBeGreaterThanOrEqual(72);
    expect(at('verify.off.agreement')).toBeGreaterThanOrEqual(66);
    expect(at('verify.hybrid.confirmed_wrongly')).toBe(0);
    expect(at('verify.off.confirmed_wrongly')).toBe(0);
  });
});
