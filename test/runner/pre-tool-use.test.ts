import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { HOUR_MS } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
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
  it('lets ordinary commands and other tools through untouched', async () => {
    expect(await decide('df -h')).toEqual({ exitCode: 0, stderr: '' });
    expect(
      (
        await decidePreToolUse(
          { tool_name: 'Read', tool_input: { file_path: '/x' } },
          { stores: app.stores, limits, clock: app.clock, sessionId: null, tier: 1 },
        )
      ).exitCode,
    ).toBe(0);
    expect(await app.stores.cooldowns.since(0)).toEqual([]);
  });

  it('records allowed restarts itself, so the limit holds even if the agent never reports them', async () => {
    expect((await decide('docker restart jellyfin')).exitCode).toBe(0);
    app.clock.advance(60_000);
    expect((await decide('ssh nas docker restart jellyfin')).exitCode).toBe(0);
    app.clock.advance(60_000);
    const third = await decide('ssh nas "docker restart jellyfin"');
    expect(third.exitCode).toBe(2);
    expect(third.stderr).toMatch(
      /^watchkeeper: jellyfin is in restart cooldown \(2 of 2 allowed in 4h; next allowed after /,
    );
    expect(await app.stores.cooldowns.blocksSince(0)).toMatchObject([
      { service: 'jellyfin', actionType: 'restart', command: 'ssh nas "docker restart jellyfin"' },
    ]);
    expect(app.stores.events.list({ level: 'warning' })[0]!.message).toContain(
      'Blocked restart (cooldown)',
    );
  });

  it('frees the service once the window has passed', async () => {
    restartAt('jellyfin', app.clock.now());
    restartAt('jellyfin', app.clock.now());
    expect((await decide('docker restart jellyfin')).exitCode).toBe(2);
    app.clock.advance(4 * HOUR_MS + 1);
    expect((await decide('docker restart jellyfin')).exitCode).toBe(0);
  });

  it('blocks a redeployment command that only mentions a service in cooldown', async () => {
    app.stores.cooldowns.insert(
      cooldownRow({ actionType: 'redeployment', createdAt: app.clock.now() }),
    );
    expect((await decide('ansible-playbook site.yml --limit jellyfin')).exitCode).toBe(2);
    expect((await decide('cd /srv/jellyfin && docker compose up -d')).exitCode).toBe(2);
    expect((await decide('ansible-playbook site.yml --limit caddy')).exitCode).toBe(0);
    expect((await decide('docker restart jellyfin')).exitCode).toBe(0); // restarts have their own limit
  });

  it('settles the hook-recorded attempt when the agent reports the outcome', async () => {
    expect((await decide('docker restart jellyfin', null)).exitCode).toBe(0);
    // As a live session reports it (awaited); `watchkeeper ingest` reports at once, the same way.
    await app.stores.cooldowns.reportAwaited({
      service: 'jellyfin',
      actionType: 'restart',
      success: false,
      message: 'still unhealthy',
      tier: 3,
      sessionId: null,
      createdAt: app.clock.now(),
    });
    expect(await app.stores.cooldowns.since(0)).toMatchObject([
      { service: 'jellyfin', source: 'hook', success: false, message: 'still unhealthy' },
    ]);
  });
});

describe('PreToolUse on the shell forms that used to get through', () => {
  beforeEach(() => {
    restartAt('jellyfin', app.clock.now());
    restartAt('jellyfin', app.clock.now());
  });

  it.each([
    '{ cd /srv; docker restart jellyfin; }',
    '>/dev/null docker restart jellyfin',
    'eval "docker restart jellyfin"',
    'echo ZG9ja2VyIHJlc3RhcnQgamVsbHlmaW4= | base64 -d | sh',
    "bash -c -- 'docker restart jellyfin'",
    `python3 -c 'import os; os.system("docker restart jellyfin")'`,
    'sudo -iu root docker restart jellyfin',
    'S=jellyfin; docker restart $S',
    'docker restart jellyfi[n]',
    'docker compose -p media restart',
    'kubectl delete pod -l app=jellyfin',
  ])('refuses %s, names the service and records the block', async (command) => {
    const decision = await decide(command);
    expect(decision.exitCode).toBe(2);
    expect(decision.stderr).toMatch(/^watchkeeper: jellyfin is in restart cooldown \(2 of 2/);
    expect(decision.stderr).toContain('Refused `');
    expect(await app.stores.cooldowns.blocksSince(0)).toMatchObject([
      { service: 'jellyfin', actionType: 'restart', command },
    ]);
    expect(await app.stores.cooldowns.since(0)).toHaveLength(2); // nothing recorded for a refusal
  });

  it('says why a command that names no service is refused', async () => {
    const decision = await decide('docker compose -p media restart');
    expect(decision.stderr).toContain(
      '`docker compose restart` names no service, so it acts on every service of the project. It could restart jellyfin',
    );
  });

  it('refuses a command that does not parse when it names the service with a restart verb', async () => {
    expect((await decide('docker restart jellyfin; fi')).exitCode).toBe(2);
    expect((await decide('echo (')).exitCode).toBe(0);
  });

  it('allows and records restarts of other services in every form', async () => {
    for (const command of [
      'S=caddy; docker restart $S',
      'echo "systemctl restart traefik" | sudo sh',
      'kubectl delete pod -l app=grafana',
    ]) {
      expect(await decide(command)).toEqual({ exitCode: 0, stderr: '' });
    }
    expect(
      (await app.stores.cooldowns.since(0))
        .filter((r) => r.source === 'hook')
        .map((r) => r.service)
        .sort(),
    ).toEqual(['caddy', 'grafana', 'traefik']);
  });

  it('counts restarts made through any form against the limit', async () => {
    expect((await decide('docker restart caddy')).exitCode).toBe(0);
    expect((await decide('bash -c "docker restart caddy"')).exitCode).toBe(0);
    const third = await decide('echo docker restart caddy | sh');
    expect(third.exitCode).toBe(2);
    expect(third.stderr).toMatch(/^watchkeeper: caddy is in restart cooldown/);
  });

  it('refuses every restart-like command when restarts are disabled', async () => {
    const disabled = { ...limits, restart: { ...limits.restart, limit: 0 } };
    const decision = await decidePreToolUse(bash('echo docker restart caddy | sh'), {
      stores: app.stores,
      limits: disabled,
      clock: app.clock,
      sessionId: null,
      tier: 3,
    });
    expect(decision.exitCode).toBe(2);
    expect(decision.stderr).toMatch(/^watchkeeper: restarts are disabled by configuration/);
  });
});

describe('PreToolUse on aliases and interpreter code that can start a process', () => {
  const decideWith = (command: string, guard?: { interpreters: string[]; aliases: boolean }) =>
    decidePreToolUse(bash(command), {
      stores: app.stores,
      limits,
      clock: app.clock,
      sessionId: null,
      tier: 3,
      guard,
    });
  const alias = "shopt -s expand_aliases\nalias r='docker restart'\nr jellyfin";
  const perl = `perl -e 'system("docker "."res"."tart jellyfin")'`;

  it('refuses them with no service in cooldown, says why, and records the block', async () => {
    const decision = await decideWith(alias);
    expect(decision.exitCode).toBe(2);
    expect(decision.stderr).toContain(
      'the script turns on alias expansion (`shopt -s expand_aliases`); an alias can hide a restart from the guard. The operator can allow this with WATCHKEEPER_GUARD_ALLOW_ALIASES=true',
    );
    expect((await decideWith(perl)).stderr).toContain(
      '`perl` code can start a process (`system`), and the guard cannot follow what it runs',
    );
    const blocks = await app.stores.cooldowns.blocksSince(0);
    expect(blocks.map((b) => [b.service, b.actionType, b.command]).sort()).toEqual([
      ['*', 'restart', perl],
      ['*', 'restart', alias],
    ]);
    expect(await app.stores.cooldowns.since(0)).toEqual([]);
    expect(app.stores.events.list({ level: 'warning' })[0]!.message).toContain(
      'Blocked a command the cooldown guard cannot check',
    );
  });

  it('lets them run when the operator allows them, the cooldowns still applying', async () => {
    const allowed = { interpreters: ['perl'], aliases: true };
    expect((await decideWith(alias, allowed)).exitCode).toBe(0);
    expect((await decideWith(perl, allowed)).exitCode).toBe(0);
    expect((await decideWith(`python3 -c 'import os; os.system("x")'`, allowed)).exitCode).toBe(2);
    restartAt('jellyfin', app.clock.now());
    restartAt('jellyfin', app.clock.now());
    const inCooldown = await decideWith(`perl -e 'system("docker restart jellyfin")'`, allowed);
    expect(inCooldown.stderr).toMatch(/^watchkeeper: jellyfin is in restart cooldown/);
  });

  it('lets innocent interpreter uses through', async () => {
    expect((await decideWith("python3 -c 'print(1)'")).exitCode).toBe(0);
    expect((await decideWith("awk '{print $1}' /etc/hosts")).exitCode).toBe(0);
    expect(await app.stores.cooldowns.blocksSince(0)).toEqual([]);
  });
});
