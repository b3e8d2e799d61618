/**
 * Every session gets the memory tools: its own --mcp-config file (the session's
 * `watchkeeper mcp`, told the session, tier, data folder and embeddings settings) beside the
 * operator's WATCHKEEPER_MCP_CONFIG, the four tools on the tier's allowed list, and the cooldown
 * hook on MCP tools. Checked on what the fixture CLI was given.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { MEMORY_TOOLS, WATCHKEEPER_BIN } from '../../src/runner/cli-args.js';
import type { SessionRequest } from '../../src/runner/session-runner.js';
import { runnerHarness, type RunnerHarness } from '../helpers/runner.js';

let h: RunnerHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const request = (tier: 1 | 2 | 3): SessionRequest => ({
  trigger: 'manual',
  tier,
  prompt: 'ok',
  parentSessionId: null,
  handoff: null,
  alert: null,
});
const recorded = (sessionId: number) =>
  JSON.parse(readFileSync(join(h!.dataDir, 'fake-claude', `${sessionId}.json`), 'utf8')) as {
    argv: string[];
    files: Record<string, { path: string; content: string; mode: number }>;
  };
const after = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1]!;

describe('the memory tools in every session', () => {
  it("passes the session's own MCP config, then the operator's, and allows the four tools on every tier", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-operator-mcp-'));
    const operator = join(dir, 'mcp.json');
    writeFileSync(operator, JSON.stringify({ mcpServers: { homelab: { command: 'true' } } }));
    h = runnerHarness({
      WATCHKEEPER_MCP_CONFIG: operator,
      WATCHKEEPER_EMBEDDINGS: 'ollama',
      WATCHKEEPER_EMBEDDINGS_URL: 'http://127.0.0.1:11434',
      WATCHKEEPER_TIER2_ALLOWED_TOOLS: 'Read',
    });
    for (const tier of [1, 2, 3] as const) {
      const out = await h.runSession(request(tier));
      const { argv, files } = recorded(out.sessionId);
      const at = argv.indexOf('--mcp-config');
      const ours = files['--mcp-config']!;
      expect(argv.slice(at + 1, at + 3)).toEqual([ours.path, operator]);
      expect(ours.mode).toBe(0o600);
      expect(existsSync(ours.path)).toBe(false); // removed with the session
      expect(JSON.parse(ours.content)).toEqual({
        mcpServers: {
          watchkeeper: {
            type: 'stdio',
            command: process.execPath,
            args: [WATCHKEEPER_BIN, 'mcp'],
            env: {
              WATCHKEEPER_DATA_DIR: h.dataDir,
              WATCHKEEPER_SESSION_ID: String(out.sessionId),
              WATCHKEEPER_TIER: String(tier),
              WATCHKEEPER_EMBEDDINGS: 'ollama',
              WATCHKEEPER_EMBEDDINGS_URL: 'http://127.0.0.1:11434',
              WATCHKEEPER_EMBEDDINGS_TIMEOUT: '10000ms',
              WATCHKEEPER_LOG_LEVEL: 'warn',
            },
          },
        },
      });
      const allowed = after(argv, '--allowedTools').split(',');
      expect(allowed).toEqual(expect.arrayContaining(MEMORY_TOOLS));
      // The operator's own list is kept (tier 2 here), with the tools added.
      if (tier === 2) expect(allowed).toEqual(['Read', ...MEMORY_TOOLS]);
      const settings = JSON.parse(files['--settings']!.content) as {
        hooks: { PreToolUse: { matcher: string }[] };
      };
      expect(settings.hooks.PreToolUse.map((e) => e.matcher)).toEqual([
        'Bash',
        '^mcp__(?!watchkeeper__)',
      ]);
    }
  });

  it('without an operator config, passes its own alone', async () => {
    h = runnerHarness();
    const out = await h.runSession(request(1));
    const { argv, files } = recorded(out.sessionId);
    expect(argv.slice(argv.indexOf('--mcp-config'))).toEqual([
      '--mcp-config',
      files['--mcp-config']!.path,
    ]);
  });
});
