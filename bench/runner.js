/**
 * Runner overhead: the time from a trigger (scheduler.trigger) to the CLI process being
 * spawned, with 10,000 memories in the store (decay, context assembly, session row, arguments
 * and environment all happen in between). The baseline, measured in the same run, is a bare
 * execa spawn of the same executable. The CLI is the fixture stand-in, so only watchkeeper's own
 * work is measured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';

import { createRuntime } from '../dist/cli/runtime.js';
import { loadConfig } from '../dist/config/index.js';
import { silentLogger } from '../dist/log.js';
import { round, summarize } from './stats.js';

const FAKE_CLAUDE = fileURLToPath(new URL('../test/fixtures/bin/fake-claude.mjs', import.meta.url));
const MEMORIES = 10_000;
const RUNS = 20;
const clock = { now: () => performance.timeOrigin + performance.now() };

async function bareSpawns(env) {
  const times = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    const child = execa(FAKE_CLAUDE, ['ok'], {
      env,
      extendEnv: false,
      buffer: false,
      stdout: 'ignore',
      stderr: 'ignore',
      reject: false,
    });
    await new Promise((resolve) => child.once('spawn', resolve));
    times.push(performance.now() - start);
    await child;
  }
  return times;
}

export async function runRunnerBench(ctx) {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-bench-runner-'));
  try {
    const env = { PATH: process.env.PATH, HOME: dataDir, WATCHKEEPER_DATA_DIR: dataDir };
    const config = loadConfig({
      ...env,
      WATCHKEEPER_CLAUDE_BIN: FAKE_CLAUDE,
      WATCHKEEPER_SCHEDULE: 'off',
    });
    let spawnedAt = 0;
    const rt = createRuntime({
      config,
      clock,
      log: silentLogger,
      env,
      onSpawn: (_id, _req, at) => (spawnedAt = at),
    });
    ctx.log(`inserting ${MEMORIES} memories...`);
    const insert = rt.stores.db
      .prepare(`INSERT INTO memories (service, category, observation, confidence,
      base_confidence, active, pinned, created_at, updated_at, last_reinforced_at, session_id, tier, next_decay_at)
      VALUES (?, ?, ?, ?, ?, 1, 0, ?, ?, ?, NULL, 1, ?)`);
    const categories = ['timing', 'dependency', 'behavior', 'remediation', 'maintenance'];
    const now = clock.now();
    rt.stores.db.transaction(() => {
      for (let i = 0; i < MEMORIES; i += 1) {
        const c = 0.3 + ((i * 7919) % 71) / 100;
        const at = now - (i % 90) * 86_400_000;
        insert.run(
          `svc-${i % 150}`,
          categories[i % 5],
          `observation ${i}: the service takes ${i % 120}s to settle`,
          c,
          c,
          at,
          at,
          at,
          0,
        );
      }
    })();
    await rt.knowledge.memory.decay(); // the first decay writes; every run after measures the steady state

    ctx.log(`${RUNS} triggered runs...`);
    const triggerToSpawn = [];
    for (let i = 0; i < RUNS + 1; i += 1) {
      const triggeredAt = clock.now();
      const ticket = rt.scheduler.trigger({
        trigger: 'manual',
        startTier: 1,
        prompt: 'ok',
        alert: null,
      });
      while (ticket.state === 'queued' || ticket.state === 'running')
        await new Promise((r) => setTimeout(r, 2));
      if (ticket.state !== 'done' || ticket.outcome.status !== 'completed') {
        ctx.fail(`run ${i} ended ${ticket.state}/${ticket.outcome?.status}: ${ticket.error ?? ''}`);
      }
      if (i > 0) triggerToSpawn.push(spawnedAt - triggeredAt); // run 0 warms up
    }
    await rt.scheduler.shutdown();
    rt.stores.close();

    ctx.log(`${RUNS} bare spawns (baseline)...`);
    const bare = summarize(await bareSpawns(env));
    const wk = summarize(triggerToSpawn);
    ctx.add({
      name: 'runner.trigger_to_spawn',
      value: round(wk.median, 2),
      unit: 'ms',
      notes: `median of ${RUNS} (${round(wk.min, 1)}..${round(wk.max, 1)}), ${MEMORIES} memories: queue, decay, context, session row, args, spawn`,
    });
    ctx.add({
      name: 'runner.bare_spawn',
      value: round(bare.median, 2),
      unit: 'ms',
      notes: `baseline: execa spawn of the same executable, median of ${RUNS} (${round(bare.min, 1)}..${round(bare.max, 1)})`,
    });
    ctx.add({
      name: 'runner.overhead',
      value: round(wk.median - bare.median, 2),
      unit: 'ms',
      notes: `watchkeeper's own work before the spawn (trigger_to_spawn - bare_spawn); ratio ${round(wk.median / bare.median, 2)}x`,
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
