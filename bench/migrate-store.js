/**
 * `watchkeeper migrate-store` of a store with 100,000 memories (each with its history row),
 * 100,000 events and 1,000 sessions into a fresh PostgreSQL database (bench/postgres-server.js),
 * run as the real CLI: rows copied per second, the copy's and the verification's time, and
 * whether every table verified.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { openStores } from '../dist/db/index.js';
import { startPostgres } from './postgres-server.js';
import { createRng } from './prng.js';
import { round } from './stats.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));
const MEMORIES = 100_000;
const EVENTS = 100_000;
const SESSIONS = 1_000;
const START = Date.UTC(2026, 0, 1);
const CATEGORIES = ['timing', 'dependency', 'behavior', 'remediation', 'maintenance'];
const LEVELS = ['info', 'warning', 'critical'];

function populate(path) {
  const stores = openStores(path);
  const rng = createRng(13);
  const db = stores.db;
  db.transaction(() => {
    const session = db.prepare(`INSERT INTO sessions (status, trigger, tier, started_at, ended_at,
      log_path, cost_usd) VALUES ('completed', 'scheduled', 1, ?, ?, ?, ?)`);
    for (let i = 1; i <= SESSIONS; i += 1) {
      const at = START + i * 3_600_000;
      session.run(at, at + 60_000, `sessions/${i}.ndjson`, rng.int(1, 500) / 1000);
    }
    const event = db.prepare(`INSERT INTO events (session_id, source, level, service, message,
      created_at) VALUES (?, 'agent', ?, ?, ?, ?)`);
    for (let i = 0; i < EVENTS; i += 1) {
      const service = `svc-${i % 40}`;
      event.run(
        1 + (i % SESSIONS),
        LEVELS[i % 3],
        service,
        `${service} answered in ${rng.int(1, 60)} ms over the limit`,
        START + i * 30_000,
      );
    }
    const memory = db.prepare(`INSERT INTO memories (service, category, observation, confidence,
      base_confidence, created_at, updated_at, last_reinforced_at, session_id, tier)
      VALUES (?, ?, ?, 0.6, 0.6, ?, ?, ?, ?, 1)`);
    const history = db.prepare(`INSERT INTO memory_history (memory_id, action, new_confidence,
      session_id, created_at) VALUES (?, 'created', 0.6, ?, ?)`);
    for (let i = 0; i < MEMORIES; i += 1) {
      const service = `svc-${i % 40}`;
      const at = START + i * 60_000;
      const sessionId = 1 + (i % SESSIONS);
      const id = memory.run(
        service,
        CATEGORIES[i % 5],
        `${service} takes about ${rng.int(5, 180)} s to become healthy after restart ${i}`,
        at,
        at,
        at,
        sessionId,
      ).lastInsertRowid;
      history.run(id, sessionId, at);
    }
  })();
  stores.close();
}

function migrateStore(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'migrate-store', ...args], {
      env: { PATH: process.env.PATH, WATCHKEEPER_EMBEDDINGS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function runMigrateStoreBench(ctx) {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-copy-'));
  const server = await startPostgres();
  try {
    const path = join(dir, 'watchkeeper.db');
    ctx.log(`populating ${MEMORIES} memories, ${EVENTS} events, ${SESSIONS} sessions`);
    populate(path);
    const url = await server.database('wk_bench_migrate_store');
    ctx.log('migrate-store');
    const started = process.hrtime.bigint();
    const out = await migrateStore(['--from', path, '--to', url, '--instance', 'bench', '--json']);
    const wall = Number(process.hrtime.bigint() - started) / 1e9;
    if (out.code !== 0) {
      ctx.fail(`migrate-store exited ${out.code}: ${out.stderr.trim().split('\n').at(-1)}`);
      return;
    }
    const report = JSON.parse(out.stdout);
    const rows = report.rows_copied;
    const notes = `${report.tables.length} tables; memories ${MEMORIES}, events ${EVENTS}, history ${MEMORIES}`;
    ctx.add({ name: 'migrate-store.rows', value: rows, unit: 'rows', notes });
    ctx.add({
      name: 'migrate-store.copy',
      value: round(report.copy_seconds, 2),
      unit: 's',
      notes: 'batches of 1,000, each with its resume cursor',
    });
    ctx.add({
      name: 'migrate-store.rate',
      value: report.rows_per_second,
      unit: 'rows/s',
      notes: 'copy only',
    });
    ctx.add({
      name: 'migrate-store.verify',
      value: round(report.verify_seconds, 2),
      unit: 's',
      notes: 'counts and sha256 checksums, both sides',
    });
    ctx.add({
      name: 'migrate-store.total',
      value: round(wall, 2),
      unit: 's',
      notes: 'the whole command: migrations, copy, verification',
    });
    if (!report.verified) ctx.fail('migrate-store: verification failed');
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
