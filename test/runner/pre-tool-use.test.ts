import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { HOUR_MS } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { decidePreToolUse } from '../../src/runner/pre-tool-use.js';
import { testApp, type TestApp, cooldownRow } from '../helpers/db.js';

let app: TestApp;
beforeEach(() => {
  app = testApp();
});
afterEach(() => app.close());

const limits = loadConfig({}).cooldowns;
const bash = (command: string) => ({
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: 't',
});
const decide = (command: string, sessionId: number | null = null) =>
  decidePreToolUse(bash(command), {
    stores: app.stores,
    limits,
    clock: app.clock,
    sessionId,
    tier: 3,
  });
const restartAt = (service: string, at: number) =>
  app.stores.cooldowns.insert(cooldownRow({ service, createdAt: at }));

describe('PreToolUse cooldown enforcement', () => {
  it('lets ordinary commands and other tools through untouched', () => {
    expect(decide('df -h')).toEqual({ exitCode: 0, stderr: '' });
    expect(
      decidePreToolUse(
        { tool_name: 'Read', tool_input: { file_path: '/x' } },
        { stores: app.stores, limits, clock: app.clock, sessionId: null, tier: 1 },
      ).exitCode,
    ).toBe(0);
    expect(app.stores.cooldowns.since(0)).toEqual([]);
  });

  it('records allowed restarts itself, so the limit holds even if the agent never reports them', () => {
    expect(decide('docker restart jellyfin').exitCode).toBe(0);
    app.clock.advance(60_000);
    expect(decide('ssh nas docker restart jellyfin').exitCode).toBe(0);
    app.clock.advance(60_000);
    const third = decide('ssh nas "docker restart jellyfin"');
    expect(third.exitCode).toBe(2);
    expect(third.stderr).toMatch(
      /^watchkeeper: jellyfin is in restart cooldown \(2 of 2 allowed in 4h; next allowed after /,
    );
    expect(app.stores.cooldowns.blocksSince(0)).toMatchObject([
      { service: 'jellyfin', actionType: 'restart', command: 'ssh nas "docker restart jellyfin"' },
    ]);
    expect(app.stores.events.list({ level: 'warning' })[0]!.message).toContain(
      'Blocked restart (cooldown)',
    );
  });

  it('frees the service once the window has passed', () => {
    restartAt('jellyfin', app.clock.now());
    restartAt('jellyfin', app.clock.now());
    expect(decide('docker restart jellyfin').exitCode).toBe(2);
    app.clock.advance(4 * HOUR_MS + 1);
    expect(decide('docker restart jellyfin').exitCode).toBe(0);
  });

  it('blocks a redeployment command that only mentions a service in cooldown', () => {
    app.stores.cooldowns.insert(
      cooldownRow({ actionType: 'redeployment', createdAt: app.clock.now() }),
    );
    expect(decide('ansible-playbook site.yml --limit jellyfin').exitCode).toBe(2);
    expect(decide('cd /srv/jellyfin && docker compose up -d').exitCode).toBe(2);
    expect(decide('ansible-playbook site.yml --limit caddy').exitCode).toBe(0);
    expect(decide('docker restart jellyfin').exitCode).toBe(0); // restarts have their own limit
  });

  it('settles the hook-recorded attempt when the agent reports the outcome', () => {
    expect(decide('docker restart jellyfin', null).exitCode).toBe(0);
    app.stores.cooldowns.report({
      service: 'jellyfin',
      actionType: 'restart',
      success: false,
      message: 'still unhealthy',
      tier: 3,
      sessionId: null,
      createdAt: app.clock.now(),
    });
    expect(app.stores.cooldowns.since(0)).toMatchObject([
      { service: 'jellyfin', source: 'hook', success: false, message: 'still unhealthy' },
    ]);
  });
});
