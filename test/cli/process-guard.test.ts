/**
 * The process guard of serve, run and mcp: a rejection no code handles is logged (with its
 * stack) and marks the process degraded, and the process goes on; without the guard Node ends
 * it. A real node process with the real process wiring (dist/, so build first); the health and
 * metrics answers in-process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { noteUnhandledError } from '../../src/metrics/index.js';
import { logLines } from '../helpers/log-lines.js';
import { type WebHarness, webHarness } from '../helpers/web.js';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** A node process that rejects a promise nobody handles, with or without the guard. */
function strayRejection(guarded: boolean) {
  if (!existsSync(`${DIST}main.js`))
    throw new Error('dist/ is missing: build with `npm run build`');
  const script = `
    const { processIo } = await import(${JSON.stringify(`${DIST}main.js`)});
    const { installProcessGuard } = await import(${JSON.stringify(`${DIST}cli/process-guard.js`)});
    const { createLogger } = await import(${JSON.stringify(`${DIST}log.js`)});
    const { processHealth } = await import(${JSON.stringify(`${DIST}metrics/index.js`)});
    const io = processIo();
    if (${guarded}) installProcessGuard(io, createLogger('info', io.stderr));
    void Promise.reject(new Error('a background task failed at postgres://wk:s3cret@db/wk'));
    setTimeout(() => io.stdout(JSON.stringify(processHealth())), 50);
  `;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 90_000,
  });
}

let web: WebHarness | null = null;
afterEach(() => {
  web?.close();
  web = null;
});

describe('the process guard', () => {
  it('logs a stray rejection, marks the process degraded, and keeps it running', () => {
    const r = strayRejection(true);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'degraded', unhandledErrors: 1 });
    const lines = logLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      msg: 'unhandled rejection: a background task failed; the process goes on',
    });
    expect(JSON.stringify(lines[0]!.error)).toContain('a background task failed');
    expect(r.stderr).not.toContain('s3cret');
  });

  it('is what keeps the process alive: without it, Node ends it', () => {
    const r = strayRejection(false);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
  });

  it('shows a degraded process on /api/v1/health and in /metrics', async () => {
    web = webHarness({ open: true });
    expect(await (await web.request('/api/v1/health')).json()).toEqual({ status: 'ok' });
    noteUnhandledError(Date.now());
    const health = await web.request('/api/v1/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'degraded', unhandled_errors: 1 });
    const metrics = await (await web.request('/metrics')).text();
    expect(metrics).toMatch(/^watchkeeper_unhandled_errors_total 1$/m);
  });
});
