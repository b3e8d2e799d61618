/**
 * End to end: the memory tools in a session. The real Claude CLI (the pinned npm package) runs
 * against the simulated model on loopback and starts `watchkeeper mcp` from the --mcp-config file
 * the runner wrote; the simulated model calls mcp__watchkeeper__memory_query, then memory_add,
 * then writes a marker for the same fact. Needs dist/ (the CLI runs bin/watchkeeper.js).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { cooldownRow } from '../helpers/db.js';
import type { SimBlock, SimRequest } from '../../src/sim/messages-api.js';
import { bash as run, type RealCli, startRealCli, text } from '../helpers/real-cli.js';

const DOCKER_MCP = fileURLToPath(new URL('../fixtures/bin/docker-mcp.mjs', import.meta.url));

let cli: RealCli | undefined;
afterEach(async () => {
  await cli?.close();
  cli = undefined;
});

const tool = (name: string, input: Record<string, unknown>): SimBlock => ({
  type: 'tool_use',
  name: `mcp__watchkeeper__${name}`,
  input,
});
const bash = (command: string) => run(command, 'wait');
const toolNames = (r: SimRequest) => (r.body.tools as { name: string }[]).map((t) => t.name);
const MEMORY_TOOLS = [
  'mcp__watchkeeper__memory_add',
  'mcp__watchkeeper__memory_query',
  'mcp__watchkeeper__memory_verify',
  'mcp__watchkeeper__memory_reinforce',
];
/**
 * This CLI version does not wait for MCP servers before its first request in -p mode (later
 * ones do): until the memory tools are in the request, the model runs a harmless command.
 */
const toolsReady = (r: SimRequest, names = MEMORY_TOOLS) =>
  names.every((n) => toolNames(r).includes(n));

async function harnessWith(
  script: (r: SimRequest) => SimBlock[],
  env: Record<string, string> = {},
) {
  cli = await startRealCli(script, {
    env: { WATCHKEEPER_SESSION_TIMEOUT: '90s', WATCHKEEPER_EMBEDDINGS: 'off', ...env },
  });
  return cli.harness;
}

describe('memory tools in a session: the real Claude CLI against the simulated model', () => {
  it('queries memory, adds a memory with the session id, and a marker for the same fact reinforces that one memory', async () => {
    // Each step answers the request that follows the previous step's tool call.
    let step = 0;
    let queried: SimRequest['toolResults'][number] | undefined;
    let added: SimRequest['toolResults'][number] | undefined;
    const harness = await harnessWith((r) => {
      if (step === 0) {
        if (!toolsReady(r)) return [text('Waiting for the tools.'), bash('sleep 0.2')];
        step = 1;
        return [
          text('Checking what we know about jellyfin first.'),
          tool('memory_query', { query: 'jellyfin start after restart', scope: 'notes' }),
        ];
      }
      if (step === 1) {
        queried = r.toolResults[0];
        step = 2;
        return [
          text('Recording a dependency.'),
          tool('memory_add', {
            content: 'Starts only after WireGuard is up',
            service: 'caddy',
            category: 'dependency',
          }),
        ];
      }
      added ??= r.toolResults[0];
      return [
        text(
          'Done.\n[MEMORY:dependency:caddy] Starts only after WireGuard is up\n' +
            '[EVENT:info:jellyfin] healthy',
        ),
      ];
    });
    const known = await harness.keeper.add({
      service: 'jellyfin',
      category: 'timing',
      observation: 'Takes 60s to start after a restart',
    });
    const out = await harness.runChain({
      trigger: 'manual',
      startTier: 1,
      prompt: 'check jellyfin',
      alert: null,
    });
    const sessionId = out.sessionIds[0]!;
    const session = harness.stores.sessions.get(sessionId)!;
    expect(session.status, session.error ?? '').toBe('completed');

    // What the model received from memory_query: the memory, with its facts and provenance.
    expect(queried?.isError).toBe(false);
    expect(queried!.content).toContain(
      `#${known.memory.id} [timing:jellyfin] Takes 60s to start after a restart`,
    );
    expect(queried!.content).toContain('importance normal');
    expect(queried!.content).toContain('from the operator');
    expect(harness.stores.memories.get(known.memory.id)!.accessCount).toBe(1);

    // memory_add stored the memory with the session's id and tier, written by a tool.
    expect(added?.isError).toBe(false);
    expect(added!.content).toContain('Stored memory #');
    const caddy = harness.stores.memories.list({ service: 'caddy', status: 'all' });
    expect(caddy).toHaveLength(1);
    expect(caddy[0]).toMatchObject({
      observation: 'Starts only after WireGuard is up',
      sessionId,
      tier: 1,
      source: 'tool',
      // created by the tool (0.7), then reinforced by the marker (0.8)
      confidence: 0.8,
    });
    expect(caddy[0]!.sourceRef).toMatch(/^memory_add toolu_/);
    expect(
      harness.stores.memories.history(caddy[0]!.id).map((x) => [x.action, x.source, x.sessionId]),
    ).toEqual([
      ['created', 'tool', sessionId],
      ['reinforced', 'marker', sessionId],
    ]);

    // The session log holds the tool calls (what the session page lists).
    const log = readFileSync(join(harness.dataDir, 'sessions', `${sessionId}.ndjson`), 'utf8');
    expect(log).toContain('"name":"mcp__watchkeeper__memory_add"');
  }, 120_000);

  it("keeps the operator's own MCP config: both servers load", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-mcp-config-'));
    const operatorConfig = join(dir, 'mcp.json');
    // The operator's server: a second instance of watchkeeper's, under another name.
    writeFileSync(
      operatorConfig,
      JSON.stringify({
        mcpServers: {
          ops: {
            type: 'stdio',
            command: process.execPath,
            args: [fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url)), 'mcp'],
            env: { WATCHKEEPER_DATA_DIR: dir, WATCHKEEPER_EMBEDDINGS: 'off' },
          },
        },
      }),
    );
    let seen: string[] = [];
    const both = ['mcp__watchkeeper__memory_query', 'mcp__ops__memory_query'];
    const harness = await harnessWith(
      (r) => {
        if (!toolsReady(r, both)) return [text('Waiting for the tools.'), bash('sleep 0.2')];
        seen = toolNames(r);
        return [text('[EVENT:info:jellyfin] healthy')];
      },
      { WATCHKEEPER_MCP_CONFIG: operatorConfig },
    );
    const out = await harness.runChain({
      trigger: 'manual',
      startTier: 1,
      prompt: 'check',
      alert: null,
    });
    expect(harness.stores.sessions.get(out.sessionIds[0]!)!.status).toBe('completed');
    expect(seen).toEqual(expect.arrayContaining([...MEMORY_TOOLS, 'mcp__ops__memory_query']));
  }, 120_000);

  it("refuses another server's MCP tool that would restart a service in cooldown, and records the one it lets through", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-docker-mcp-'));
    const calls = join(dir, 'calls.ndjson');
    const operatorConfig = join(dir, 'mcp.json');
    writeFileSync(
      operatorConfig,
      JSON.stringify({
        mcpServers: {
          docker: {
            type: 'stdio',
            command: process.execPath,
            args: [DOCKER_MCP],
            env: { CALLS_FILE: calls },
          },
        },
      }),
    );
    const restart = 'mcp__docker__restart_container';
    let step = 0;
    const results: SimRequest['toolResults'] = [];
    const harness = await harnessWith(
      (r) => {
        if (step === 0) {
          if (!toolsReady(r, [restart])) return [text('Waiting for the tools.'), bash('sleep 0.2')];
          step = 1;
          return [
            text('Restarting jellyfin.'),
            { type: 'tool_use', name: restart, input: { container: 'jellyfin' } },
          ];
        }
        if (step === 1) {
          results.push(r.toolResults[0]!);
          step = 2;
          return [
            text('Restarting caddy.'),
            { type: 'tool_use', name: restart, input: { container: 'caddy' } },
          ];
        }
        if (step === 2) {
          results.push(r.toolResults[0]!);
          step = 3;
        }
        return [text('[EVENT:critical:jellyfin] restart refused: cooldown')];
      },
      {
        WATCHKEEPER_MCP_CONFIG: operatorConfig,
        WATCHKEEPER_TIER3_ALLOWED_TOOLS: `Bash,${restart}`,
      },
    );
    for (let i = 0; i < 2; i += 1) {
      harness.stores.cooldowns.insert(cooldownRow({ createdAt: Date.now() - 60_000 }));
    }
    const out = await harness.runChain({
      trigger: 'manual',
      startTier: 3,
      prompt: 'fix jellyfin',
      alert: null,
    });
    const sessionId = out.sessionIds[0]!;
    expect(harness.stores.sessions.get(sessionId)!.status).toBe('completed');
    expect(results[0]).toMatchObject({ isError: true });
    expect(results[0]!.content).toContain('jellyfin is in restart cooldown (2 of 2 allowed in 4h');
    expect(results[1]).toMatchObject({ isError: false, content: 'restarted caddy' });
    // The refused call never reached the server; the allowed one did, and counts against caddy.
    const reached = existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
    expect(reached.map((l) => JSON.parse(l))).toEqual([{ container: 'caddy' }]);
    expect(await harness.stores.cooldowns.blocksSince(0)).toMatchObject([
      { service: 'jellyfin', sessionId, command: `${restart} {"container":"jellyfin"}` },
    ]);
    expect(
      (await harness.stores.cooldowns.since(0))
        .filter((c) => c.source === 'hook')
        .map((c) => [c.service, c.actionType, c.sessionId]),
    ).toEqual([['caddy', 'restart', sessionId]]);
  }, 120_000);
});
