/**
 * End to end: the gateway's CLI backend runs the real pinned Claude CLI (`claude -p
 * --output-format json --model M --json-schema S`) against the simulated Messages API on
 * loopback. The CLI offers the model its StructuredOutput tool, checks the answer itself and
 * prints `structured_output`; the gateway checks it again and records the job.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { GATE_SCHEMA, GATE_SYSTEM } from '../../src/conversations/index.js';
import { createBackend, createGateway } from '../../src/gateway/index.js';
import { gatewayScript } from '../../src/sim/gateway-jobs.js';
import {
  type SimScript,
  type SimulatedModel,
  startSimulatedModel,
} from '../../src/sim/messages-api.js';
import { testApp, type TestApp } from '../helpers/db.js';

let app: TestApp | undefined;
let sim: SimulatedModel | undefined;
afterEach(async () => {
  await sim?.close();
  app?.close();
  sim = undefined;
  app = undefined;
});

async function cliGateway(script: SimScript) {
  app = testApp();
  sim = await startSimulatedModel(script);
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: app.dataDir,
    WATCHKEEPER_GATEWAY: 'cli',
    WATCHKEEPER_GATEWAY_TIMEOUT: '60s',
  });
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: mkdtempSync(join(tmpdir(), 'watchkeeper-home-')),
  };
  const backend = createBackend(config, env, {
    ANTHROPIC_BASE_URL: sim.url,
    ANTHROPIC_API_KEY: 'simulated',
  });
  return createGateway({
    config: config.gateway,
    backend,
    jobs: app.stores.gatewayJobs,
    events: app.stores.events,
    clock: app.clock,
  });
}

describe('gateway CLI backend: the real Claude CLI against the simulated model', () => {
  it('runs a job with a JSON schema and returns validated JSON', async () => {
    const gateway = await cliGateway(gatewayScript);
    const r = await gateway.run({
      kind: 'gate',
      system: GATE_SYSTEM,
      prompt:
        'Conversation window (messages 0-1):\n[#0 user] We decided to use Caddy.\n[#1 assistant] OK.',
      schema: GATE_SCHEMA,
      ref: 'e2e gate',
    });
    expect(r).toMatchObject({
      ok: true,
      json: { worth_remembering: true, reason: 'message #0 says "decided"' },
    });
    // One model request: the job's own (no title, no tools other than StructuredOutput).
    expect(sim!.requests).toHaveLength(1);
    const request = sim!.requests[0]!;
    expect(request.model).toMatch(/haiku/);
    expect((request.body.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'StructuredOutput',
    ]);
    expect(request.system).toContain('[watchkeeper:gate]');
    expect(request.prompt).toContain('[#0 user] We decided to use Caddy.');
    const job = app!.stores.gatewayJobs.get(r.jobId)!;
    expect(job).toMatchObject({ kind: 'gate', backend: 'cli', outcome: 'ok' });
    expect(job.model).toMatch(/haiku/);
    expect(job.costUsd).toBeGreaterThan(0);
    expect(job.inputTokens).toBeGreaterThan(0);
  });

  it('fails the job when the model never answers in the schema', async () => {
    const gateway = await cliGateway(() => [{ type: 'text', text: 'I would rather chat.' }]);
    const r = await gateway.run({
      kind: 'gate',
      system: GATE_SYSTEM,
      prompt: 'Conversation window (messages 0-0):\n[#0 user] hi',
      schema: GATE_SCHEMA,
    });
    expect(r).toMatchObject({ ok: false, outcome: 'invalid_output' });
  });
});
