/**
 * The cooldown hook for MCP tools: a call of another server's tool whose name or input says it
 * restarts or redeploys, naming a service in cooldown, is refused like the Bash command would be.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { hookSettings, MEMORY_TOOLS } from '../../src/runner/cli-args.js';
import { identifierWords, mcpToolIntents } from '../../src/runner/guard/mcp-tools.js';
import { decidePreToolUse } from '../../src/runner/pre-tool-use.js';
import { cooldownRow, testApp, type TestApp } from '../helpers/db.js';

let app: TestApp;
beforeEach(() => {
  app = testApp();
});
afterEach(() => app.close());

const limits = loadConfig({}).cooldowns;
const call = (tool_name: string, tool_input: unknown) =>
  decidePreToolUse(
    { hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: 't' },
    { stores: app.stores, limits, clock: app.clock, sessionId: null, tier: 3 },
  );
const inCooldown = (service: string) => {
  for (let i = 0; i < 2; i += 1)
    app.stores.cooldowns.insert(cooldownRow({ service, createdAt: app.clock.now() - 60_000 }));
};
const actions = (tool: string, input: unknown) =>
  mcpToolIntents(tool, input)!.intents.map((i) => [i.action, i.targets, i.untargeted]);

describe('what an MCP tool call could restart or redeploy', () => {
  it('reads the verb from the tool name or an input value, the services from name-like fields', () => {
    expect(identifierWords('restartContainer')).toEqual(['restart', 'container']);
    expect(actions('mcp__docker__restart_container', { container: 'Jellyfin' })).toEqual([
      ['restart', ['jellyfin'], false],
    ]);
    expect(
      actions('mcp__homelab__service', { action: 'restart', name: 'jellyfin.service' }),
    ).toEqual([['restart', ['jellyfin'], false]]);
    expect(actions('mcp__portainer__stackRedeploy', { stack: 'media' })).toEqual([
      ['redeployment', ['media'], false],
    ]);
    expect(actions('mcp__k8s__scale', { deployment: 'web', force_recreate: true })).toEqual([
      ['redeployment', ['web'], false],
    ]);
  });

  it('fails closed: a restart that names no service counts against every service', () => {
    expect(actions('mcp__docker__restart_all', {})).toEqual([['restart', [], true]]);
  });

  it('leaves reading tools, other tools and the memory tools alone', () => {
    expect(actions('mcp__docker__get_restart_count', { container: 'jellyfin' })).toEqual([]);
    expect(actions('mcp__grafana__list_dashboards', { query: 'restart' })).toEqual([]);
    expect(actions('mcp__github__create_issue', { title: 'docs' })).toEqual([]);
    expect(
      actions('mcp__watchkeeper__memory_add', { content: 'restart jellyfin', service: 'jellyfin' }),
    ).toEqual([]);
    expect(mcpToolIntents('Bash', { command: 'docker restart x' })).toBeNull();
  });

  it('hands shell commands in the input to the Bash guard', () => {
    expect(
      mcpToolIntents('mcp__ssh__exec', { host: 'nas', command: 'docker restart jellyfin' })!
        .commands,
    ).toEqual(['docker restart jellyfin']);
    expect(
      mcpToolIntents('mcp__ssh__exec', { cmd: ['systemctl', 'restart', 'caddy'] })!.commands,
    ).toEqual(["'systemctl' 'restart' 'caddy'"]);
  });
});

describe('PreToolUse for MCP tools', () => {
  it('refuses a restart of a service in cooldown, records an allowed one, and keeps the Bash behaviour', async () => {
    inCooldown('jellyfin');
    const refused = await call('mcp__docker__restart_container', { container: 'jellyfin' });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /^watchkeeper: jellyfin is in restart cooldown \(2 of 2 allowed in 4h/,
    );
    expect(refused.stderr).toContain(
      'the MCP tool `mcp__docker__restart_container` would restart or stop jellyfin',
    );
    expect(await app.stores.cooldowns.blocksSince(0)).toMatchObject([
      { service: 'jellyfin', command: 'mcp__docker__restart_container {"container":"jellyfin"}' },
    ]);

    expect((await call('mcp__docker__restart_container', { container: 'caddy' })).exitCode).toBe(0);
    expect(
      (await app.stores.cooldowns.since(0))
        .filter((c) => c.source === 'hook')
        .map((c) => c.service),
    ).toEqual(['caddy']);

    // A command in the input goes through the Bash guard.
    const viaShell = await call('mcp__ssh__exec', {
      host: 'nas',
      command: 'docker restart jellyfin',
    });
    expect(viaShell.exitCode).toBe(2);
    // Untargeted: any service in cooldown blocks it.
    expect((await call('mcp__docker__restart_all', {})).exitCode).toBe(2);
    // Reading and memory tools pass.
    expect((await call('mcp__docker__inspect_container', { container: 'jellyfin' })).exitCode).toBe(
      0,
    );
    expect(
      (await call('mcp__watchkeeper__memory_add', { content: 'restart jellyfin' })).exitCode,
    ).toBe(0);
    const bash = await decidePreToolUse(
      { tool_name: 'Bash', tool_input: { command: 'docker restart jellyfin' } },
      { stores: app.stores, limits, clock: app.clock, sessionId: null, tier: 3 },
    );
    expect(bash.exitCode).toBe(2);
  });

  it('the hook is registered for every MCP tool but the memory tools', () => {
    const settings = hookSettings({}, '/usr/bin/node') as {
      hooks: { PreToolUse: { matcher: string }[] };
    };
    const matchers = settings.hooks.PreToolUse.map((e) => e.matcher);
    expect(matchers[0]).toBe('Bash');
    // Claude Code treats a matcher with other characters than [A-Za-z0-9_|] as a regex.
    const mcp = new RegExp(matchers[1]!);
    expect(mcp.test('mcp__docker__restart_container')).toBe(true);
    expect(mcp.test('Bash')).toBe(false);
    for (const tool of MEMORY_TOOLS) expect(mcp.test(tool)).toBe(false);
  });
});
