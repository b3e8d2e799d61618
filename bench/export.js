/**
 * `watchkeeper export --all` of 100,000 memories (each with its history) to a file: the time and
 * the peak RSS of the export process, beside an export of 10,000 of them (one service in ten),
 * and of 100,000 again with V8's old space capped at 48 MB (it completes: what the export holds
 * does not grow with the count). RSS is sampled from /proc every 10 ms (VmHWM, the kernel's
 * high-water mark, until the process ends).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { openStores } from '../dist/db/index.js';
import { createRng } from './prng.js';
import { round } from './stats.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));
const MEMORIES = 100_000;
const SERVICES = 10;
const START = Date.UTC(2026, 0, 1);
const CATEGORIES = ['timing', 'dependency', 'behavior', 'remediation', 'maintenance'];

function statusKb(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function populate(dataDir) {
  const stores = openStores(join(dataDir, 'watchkeeper.db'));
  const rng = createRng(14);
  stores.db.transaction(() => {
    const ids = [];
    for (let i = 0; i < MEMORIES; i += 1) {
      const at = START + i * 60_000;
      const service = `svc-${i % SERVICES}`;
      ids.push(
        stores.memories.create({
          service,
          category: CATEGORIES[i % CATEGORIES.length],
          observation: `${service} takes about ${rng.int(5, 180)} s to become healthy after restart ${i}`,
          confidence: 0.5,
          sessionId: null,
          tier: 1 + (i % 3),
          at,
          nextDecayAt: at + 14 * 86_400_000,
        }),
      );
    }
    // A third of them reinforced once: two history rows.
    stores.memories.change(
      ids
        .filter((_, i) => i % 3 === 0)
        .map((id) => ({ id, action: 'reinforced', confidence: 0.6, active: true, at: START + 1 })),
    );
  })();
  stores.close();
}

async function exportOnce(dataDir, args, out, nodeFlags = []) {
  const fd = openSync(out, 'w');
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeFlags, BIN, 'export', ...args], {
    env: { PATH: process.env.PATH, WATCHKEEPER_DATA_DIR: dataDir, WATCHKEEPER_EMBEDDINGS: 'off' },
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, statusKb(child.pid, 'VmHWM') ?? 0);
  }, 10);
  const code = await new Promise((r) => child.on('close', r));
  clearInterval(timer);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) throw new Error(`export exited with ${code}: ${stderr.slice(-2000)}`);
  return { ms, peakMb: peak / 1024, bytes: statSync(out).size };
}

export async function runExportBench(ctx) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-export-'));
  try {
    ctx.log(`writing ${MEMORIES.toLocaleString('en')} memories...`);
    populate(dataDir);
    ctx.log('export --all...');
    const all = await exportOnce(dataDir, ['--all'], join(dataDir, 'all.jsonl'));
    ctx.log('export --service svc-0 (a tenth)...');
    const tenth = await exportOnce(
      dataDir,
      ['--all', '--service', 'svc-0'],
      join(dataDir, 'one.jsonl'),
    );
    // A V8 old space capped at 48 MB: the export still completes, so what it holds is bounded
    // (without the cap V8 collects lazily and RSS shows garbage not yet collected).
    ctx.log('export --all with --max-old-space-size=48...');
    const capped = await exportOnce(dataDir, ['--all'], join(dataDir, 'capped.jsonl'), [
      '--max-old-space-size=48',
    ]);
    const lines = readFileSync(join(dataDir, 'all.jsonl'), 'utf8').split('\n').length - 2;
    if (lines !== MEMORIES + 0) ctx.fail(`the export holds ${lines} memory lines, not ${MEMORIES}`);
    ctx.add({
      name: 'export.100k_time',
      value: round(all.ms / 1000, 2),
      unit: 's',
      notes: `watchkeeper export --all of ${MEMORIES.toLocaleString('en')} memories with their history (${round(all.bytes / 1048576, 1)} MB of JSON Lines), process start included`,
    });
    ctx.add({
      name: 'export.100k_peak_rss',
      value: round(all.peakMb, 1),
      unit: 'MB',
      notes: 'VmHWM of the export process',
    });
    ctx.add({
      name: 'export.10k_peak_rss',
      value: round(tenth.peakMb, 1),
      unit: 'MB',
      notes: `the same for 10,000 of them (${round(tenth.ms / 1000, 2)} s)`,
    });
    ctx.add({
      name: 'export.100k_peak_rss_capped',
      value: round(capped.peakMb, 1),
      unit: 'MB',
      notes: `100,000 again with V8's old space capped at 48 MB: done in ${round(capped.ms / 1000, 2)} s, so the export holds a bounded amount whatever the count`,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
