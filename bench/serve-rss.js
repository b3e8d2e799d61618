/**
 * Peak RSS of `watchkeeper serve --demo` over a compressed demo: a chain every 10 seconds
 * instead of every minute, for BENCH_SERVE_SECONDS (default 120), so a couple of minutes stand in
 * for an hour of hourly runs many times over. RSS of the serve process itself (not the CLI
 * children) is sampled from /proc every 250 ms.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { round } from './stats.js';

const BIN = fileURLToPath(new URL('../bin/watchkeeper.js', import.meta.url));

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

export async function runServeRssBench(ctx) {
  const seconds = Number(process.env.BENCH_SERVE_SECONDS ?? 120);
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-serve-'));
  try {
    ctx.log(`serve --demo with a chain every 10 s, for ${seconds} s...`);
    const child = spawn(process.execPath, [BIN, 'serve', '--demo'], {
      env: {
        PATH: process.env.PATH,
        HOME: dataDir,
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_SCHEDULE: '*/10 * * * * *',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr.on('data', (d) => (log += d.toString()));
    const samples = [];
    const started = Date.now();
    while (Date.now() - started < seconds * 1000 && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 250));
      const rss = statusKb(child.pid, 'VmRSS');
      if (rss !== null) samples.push({ t: Date.now() - started, rss });
    }
    const hwm = statusKb(child.pid, 'VmHWM');
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.on('close', r));
    if (code !== 0) ctx.fail(`serve exited with ${code}:\n${log.slice(-2000)}`);
    const sessions = (log.match(/session ended/g) ?? []).length;
    const completed = (log.match(/status=completed/g) ?? []).length;
    const firstMinute = samples.filter((s) => s.t < 30_000).map((s) => s.rss);
    const lastPart = samples.filter((s) => s.t > seconds * 1000 - 30_000).map((s) => s.rss);
    const max = (xs) => (xs.length ? Math.max(...xs) : 0);
    ctx.add({
      name: 'serve.peak_rss',
      value: round((hwm ?? max(samples.map((s) => s.rss))) / 1024, 1),
      unit: 'MB',
      notes: `VmHWM of the serve process over ${seconds} s, ${sessions} sessions (${completed} completed), a chain every 10 s`,
    });
    ctx.add({
      name: 'serve.rss_first_30s',
      value: round(max(firstMinute) / 1024, 1),
      unit: 'MB',
      notes: 'max RSS in the first 30 s',
    });
    ctx.add({
      name: 'serve.rss_last_30s',
      value: round(max(lastPart) / 1024, 1),
      unit: 'MB',
      notes: 'max RSS in the last 30 s (growth over the first 30 s would show a leak)',
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
