/**
 * End to end with the real Claude CLI against the simulated model, through the real runtime
 * (scheduler, runner, gateway, dashboard): a run started over the API on a dry run has its
 * restart refused at tier 3, and a session's page shows the exact system prompt it was given
 * and the chain's summary. Needs dist/ (the CLI runs `watchkeeper hook pre-tool-use`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { createDashboard } from '../../src/cli/dashboard.js';
import { createRuntime, type Runtime } from '../../src/cli/runtime.js';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { withGatewayJobs } from '../../src/sim/gateway-jobs.js';
import {
  type SimBlock,
  type SimRequest,
  type SimulatedModel,
  startSimulatedModel,
} from '../../src/sim/messages-api.js';
import { bash, side, text } from '../helpers/real-cli.js';

const TEE = fileURLToPath(new URL('../fixtures/bin/tee-claude.mjs', import.meta.url));
const REAL_CLAUDE = loadConfig({}).runner.claudeBin;
const TOKEN = 'session-record-token-0123456789';

let rt: Runtime | undefined;
let sim: SimulatedModel | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await rt?.close();
  rt = undefined;
  await sim?.close();
  sim = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The real runtime and dashboard; sessions run the real CLI, the gateway asks the same model. */
async function start(script: (r: SimRequest) => SimBlock[], env: Record<string, string> = {}) {
  sim = await startSimulatedModel(withGatewayJobs((r) => (side(r) ? [text('ok')] : script(r))));
  const dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-record-e2e-'));
  dirs.push(dataDir);
  const config = loadConfig({
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_CLAUDE_BIN: TEE,
    WATCHKEEPER_CHILD_ENV: 'REAL_CLAUDE_BIN',
    WATCHKEEPER_SESSION_TIMEOUT: '60s',
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_EMBEDDINGS: 'off',
    WATCHKEEPER_GATEWAY: 'anthropic',
    WATCHKEEPER_GATEWAY_URL: sim.url,
    WATCHKEEPER_GATEWAY_KEY: 'simulated',
    WATCHKEEPER_AUTH_TOKEN: TOKEN,
    ...env,
  });
  rt = createRuntime({
    config,
    clock: systemClock,
    log: silentLogger,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      REAL_CLAUDE_BIN: REAL_CLAUDE,
    },
    simulated: true,
    childEnvOverrides: { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: 'simulated' },
  });
  const app = createDashboard(rt, { clock: systemClock, demo: false });
  const request = (path: string, init: RequestInit = {}) =>
    app.request(path, {
      ...init,
      headers: { Authorization: `Bearer ${TOKEN}`, ...(init.headers ?? {}) },
    });
  return { rt, request };
}

/** Waits for a queued run to end (the test's own timeout bounds it). */
async function finished(runtime: Runtime, requestId: string) {
  for (;;) {
    const t = runtime.scheduler.ticket(requestId);
    if (t && (t.state === 'done' || t.state === 'failed')) return t;
    await sleep(50);
  }
}

const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

describe('session record, end to end', () => {
  it('on a dry run, refuses a restart at tier 3 started through the API', async () => {
    const { rt: runtime, request } = await start(
      (r) =>
        r.turn === 0
          ? [text('Restarting jellyfin.'), bash('ssh media-host docker restart jellyfin')]
          : [
              text(
                r.toolResults[0]?.isError
                  ? 'Refused.\n\nDegraded: jellyfin (restart refused: dry run).'
                  : 'Restarted.\n\nHealthy: jellyfin.',
              ),
            ],
      { WATCHKEEPER_DRY_RUN: 'true' },
    );
    const res = await request('/api/v1/sessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ prompt: 'restart jellyfin', tier: 3 }),
    });
    expect(res.status).toBe(202);
    const ticket = await finished(
      runtime,
      ((await res.json()) as { request_id: string }).request_id,
    );
    const sessionId = ticket.sessionIds[0]!;
    expect(runtime.stores.sessions.get(sessionId)).toMatchObject({ tier: 3, trigger: 'api' });

    // The CLI ran the guard, which refused the restart; the model was told why.
    const toolResult = readFileSync(
      join(runtime.config.dataDir, 'sessions', `${sessionId}.ndjson`),
      'utf8',
    )
      .split('\n')
      .filter((l) => l.includes('"tool_result"'))
      .map((l) => JSON.parse(l).message.content[0]);
    expect(toolResult).toHaveLength(1);
    expect(toolResult[0].is_error).toBe(true);
    expect(toolResult[0].content).toContain('this is a dry run (WATCHKEEPER_DRY_RUN)');
    expect(await runtime.stores.cooldowns.blocksSince(0)).toMatchObject([
      { service: 'jellyfin', sessionId, command: 'ssh media-host docker restart jellyfin' },
    ]);
    // Nothing was recorded as restarted: the limits count no attempt.
    expect(await runtime.stores.cooldowns.since(0)).toEqual([]);
    expect(runtime.stores.sessionRecords.checks(sessionId)).toMatchObject([
      { service: 'jellyfin', health: 'degraded', detail: 'restart refused: dry run' },
    ]);
  });

  it('shows a session’s exact system prompt, its summary and its tokens on its page', async () => {
    const { rt: runtime, request } = await start(() => [
      text('[HEALTH:healthy:caddy] 40 ms\n\nAll checked: caddy answers in 40 ms.'),
    ]);
    await runtime.knowledge.memory.add({
      service: 'caddy',
      category: 'dependency',
      observation: 'Starts only after WireGuard is up & <running>',
    });
    const res = await request('/api/v1/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'ALERT: caddy "5xx" above 5%' }),
    });
    expect(res.status).toBe(202);
    const ticket = await finished(
      runtime,
      ((await res.json()) as { request_id: string }).request_id,
    );
    const sessionId = ticket.sessionIds[0]!;
    await runtime.summaries.idle();

    const stored = runtime.stores.sessionRecords.systemPrompt(sessionId)!;
    // What the model received ends with exactly the appended text.
    const main = sim!.requests.find((r) => !side(r) && r.system.includes('## Run context'))!;
    expect(main.system.endsWith(stored)).toBe(true);
    expect(stored).toContain('Starts only after WireGuard is up & <running>');
    expect(stored).toContain('ALERT: caddy "5xx" above 5%');

    const page = await (await request(`/sessions/${sessionId}`)).text();
    expect(page).toContain(`<pre class="tool-answer wrap">${escapeHtml(stored)}</pre>`);
    expect(page).toMatch(/id="services-checked"[\s\S]*caddy[\s\S]*healthy[\s\S]*40 ms/);
    const summary = runtime.stores.sessionRecords.summary(sessionId)!;
    expect(summary).toMatchObject({ source: 'model', status: 'done' });
    expect(summary.text).toBe(
      'An alert run at tier 1 ended completed. Tier 1: All checked: caddy answers in 40 ms.',
    );
    expect(page).toContain(escapeHtml(summary.text!));
    const usage = runtime.stores.sessions.get(sessionId)!.usage as Record<string, number>;
    expect(page).toContain(`${usage.input_tokens!.toLocaleString('en-US')} in · `);

    // The API gives the same record.
    const detail = (await (await request(`/api/v1/sessions/${sessionId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(detail).toMatchObject({
      system_prompt: stored,
      summary: { text: summary.text, source: 'model', status: 'done', session_id: sessionId },
      tokens: { input: usage.input_tokens, output: usage.output_tokens },
      services_checked: [
        { service: 'caddy', health: 'healthy', detail: '40 ms', source: 'marker' },
      ],
    });

    // The overview's last-run card and the sessions list show the summary too.
    expect(await (await request('/')).text()).toContain(escapeHtml(summary.text!));
    expect(await (await request('/sessions')).text()).toContain(escapeHtml(summary.text!));
  });
});
