/**
 * The page of a finished session with a 100 MB log: `watchkeeper serve` in its own process,
 * the first view (the log's memory tool calls read once) and then requests/s and p50/p99 latency
 * under load (wrk or autocannon, 32 connections on loopback).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { openStores } from '../dist/db/index.js';
import { round } from './stats.js';
import { freePort, hasWrk, load, TOKEN } from './wrk.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));
const LOG_BYTES = Number(process.env.BENCH_SESSION_LOG_MB ?? 100) * 1024 * 1024;
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS ?? 10);

function line(i) {
  const kind = i % 3;
  if (kind === 0) {
    return JSON.stringify({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `Step ${i}: checking ${'x'.repeat(300)}` }],
      },
      parent_tool_use_id: null,
    });
  }
  if (kind === 1) {
    return JSON.stringify({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: `toolu_${i}`,
            name: 'Bash',
            input: { command: `curl -s http://svc-${i % 50}/health` },
          },
        ],
      },
      parent_tool_use_id: null,
    });
  }
  return JSON.stringify({
    type: 'user',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: `ok ${'y'.repeat(600)}` },
      ],
    },
    parent_tool_use_id: null,
  });
}

async function writeLog(path) {
  const out = createWriteStream(path);
  let bytes = 0;
  for (let i = 0; bytes < LOG_BYTES; i += 1) {
    const l = `${line(i)}\n`;
    bytes += l.length;
    if (!out.write(l)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
  return bytes;
}

export async function runSessionPageBench(ctx) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-session-'));
  let serve;
  try {
    mkdirSync(join(dataDir, 'sessions'), { recursive: true });
    const bytes = await writeLog(join(dataDir, 'sessions/big.ndjson'));
    ctx.log(`wrote a session log of ${round(bytes / 1024 / 1024, 0)} MB`);
    const stores = openStores(join(dataDir, 'watchkeeper.db'));
    const id = stores.sessions.start({
      trigger: 'manual',
      tier: 1,
      startedAt: Date.now(),
      logPath: 'sessions/big.ndjson',
    });
    stores.sessions.finish(id, { status: 'completed', endedAt: Date.now() });
    stores.close();
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
        WATCHKEEPER_EMBEDDINGS: 'off',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    serve.stderr.on('data', (d) => (log += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i += 1) {
      try {
        if ((await fetch(`${base}/api/v1/health`)).ok) break;
      } catch {
        // not listening yet
      }
      if (i > 200 || serve.exitCode !== null) throw new Error(`serve did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const path = `/sessions/${id}`;
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const t0 = performance.now();
    const first = await fetch(base + path, { headers });
    const html = await first.text();
    const firstMs = performance.now() - t0;
    if (first.status !== 200) ctx.fail(`${path} answered ${first.status}`);
    const t1 = performance.now();
    await (await fetch(base + path, { headers })).text();
    const secondMs = performance.now() - t1;
    const tool = (await hasWrk()) ? 'wrk' : 'autocannon';
    ctx.log(`GET ${path} (${html.length} bytes), 32 connections, ${SECONDS} s...`);
    await load(base + path, 2, tool);
    const r = await load(base + path, SECONDS, tool);
    if (r.bad > 0) ctx.fail(`${path}: ${r.bad} failed requests`);
    const how = `${tool}, 32 connections, ${SECONDS} s; ${round(bytes / 1024 / 1024, 0)} MB log; ${html.length} bytes a page`;
    ctx.add({
      name: 'http.session.first_ms',
      value: round(firstMs, 0),
      unit: 'ms',
      notes: 'first view of the page (cold)',
    });
    ctx.add({
      name: 'http.session.second_ms',
      value: round(secondMs, 0),
      unit: 'ms',
      notes: 'second view',
    });
    ctx.add({
      name: 'http.session.rps',
      value: round(r.rps, 0),
      unit: 'req/s',
      notes: `GET ${path} (${how})`,
    });
    ctx.add({ name: 'http.session.p50', value: r.p50, unit: 'ms', notes: 'median latency' });
    ctx.add({ name: 'http.session.p99', value: r.p99, unit: 'ms', notes: 'p99 latency' });
  } finally {
    if (serve && serve.exitCode === null) {
      serve.kill('SIGTERM');
      await new Promise((r) => serve.on('close', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
