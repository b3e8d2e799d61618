/**
 * Dashboard throughput: `watchkeeper serve` in its own process over a store with 100,000
 * memories and 100,000 events; autocannon (32 connections on loopback) requests the first page
 * of memories (50 rows) and of events. Reports requests/s and p50/p99 latency.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { openStores } from '../dist/db/index.js';
import { round } from './stats.js';
import { freePort, hasWrk, load, TOKEN } from './wrk.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));
const ROWS = 100_000;
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 10);

function seed(dbPath) {
  const stores = openStores(dbPath);
  const now = Date.now();
  const categories = ['timing', 'dependency', 'behavior', 'remediation', 'maintenance'];
  const levels = ['info', 'info', 'info', 'warning', 'critical'];
  const mem = stores.db.prepare(`INSERT INTO memories (service, category, observation, confidence,
    base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier, next_decay_at)
    VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, NULL, 1, ?)`);
  const ev = stores.db
    .prepare(`INSERT INTO events (session_id, source, level, service, message, created_at)
    VALUES (NULL, 'agent', ?, ?, ?, ?)`);
  stores.db.transaction(() => {
    for (let i = 0; i < ROWS; i += 1) {
      const c = 0.3 + ((i * 7919) % 71) / 100;
      const at = now - (i % 20) * 86_400_000 - i;
      mem.run(
        `svc-${i % 300}`,
        categories[i % 5],
        `Observation ${i}: restarts take ${i % 120}s and the cache warms for a minute after`,
        c,
        c,
        i % 10 === 0 ? 0 : 1,
        at,
        at,
        at,
        now + 86_400_000,
      );
      ev.run(
        levels[i % 5],
        `svc-${i % 300}`,
        `Event ${i}: /health answered in ${(i % 3000) / 1000}s`,
        now - i * 1000,
      );
    }
  })();
  stores.close();
}

export async function runDashboardBench(ctx) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-web-'));
  let serve;
  try {
    ctx.log(`seeding ${ROWS} memories and ${ROWS} events...`);
    seed(join(dataDir, 'watchkeeper.db'));
    const port = await freePort();
    serve = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        PATH: process.env.PATH,
        HOME: dataDir,
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_PORT: String(port),
        WATCHKEEPER_SCHEDULE: 'off',
        WATCHKEEPER_AUTH_TOKEN: TOKEN,
        WATCHKEEPER_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    serve.stderr.on('data', (d) => (log += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    const tool = (await hasWrk()) ? 'wrk' : 'autocannon';
    if (tool === 'autocannon') {
      ctx.log(
        'wrk not found: using autocannon, which on 2 cores saturates before the server does (apt-get install wrk)',
      );
    }
    for (let i = 0; ; i += 1) {
      try {
        if ((await fetch(`${base}/api/v1/health`)).ok) break;
      } catch {
        // not listening yet
      }
      if (i > 200 || serve.exitCode !== null) throw new Error(`serve did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const [name, path] of [
      ['memories', '/memories'],
      ['events', '/events'],
    ]) {
      const probe = await fetch(base + path, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const html = await probe.text();
      if (probe.status !== 200) ctx.fail(`${path} answered ${probe.status}`);
      ctx.log(`GET ${path} (${html.length} bytes), 32 connections, ${SECONDS} s...`);
      await load(base + path, 2, tool); // warm-up: JIT, page cache
      const r = await load(base + path, SECONDS, tool);
      if (r.bad > 0) ctx.fail(`${path}: ${r.bad} failed requests`);
      const how = `${tool}, 32 connections, ${SECONDS} s; ${ROWS} rows; ${html.length} bytes a page`;
      ctx.add({
        name: `http.${name}.rps`,
        value: round(r.rps, 0),
        unit: 'req/s',
        notes: `GET ${path} first page (${how}); goal >= 1500`,
      });
      ctx.add({ name: `http.${name}.p50`, value: r.p50, unit: 'ms', notes: 'median latency' });
      ctx.add({
        name: `http.${name}.p99`,
        value: r.p99,
        unit: 'ms',
        notes: `p99 latency${name === 'memories' ? '; goal <= 50 ms' : ''}`,
      });
    }
  } finally {
    if (serve && serve.exitCode === null) {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.on('close', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
