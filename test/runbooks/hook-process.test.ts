/**
 * The manifests' rules through the real `watchkeeper hook pre-tool-use` process, as the Claude
 * CLI runs it: the tier from WATCHKEEPER_TIER, the repos folder from WATCHKEEPER_REPOS_DIR.
 * Needs dist/.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, expect, it } from 'vitest';

import { openStores } from '../../src/db/index.js';
import { hookSettings } from '../../src/runner/cli-args.js';

import type { ReposFolder } from './repos-fixture.js';
import { rulesRepos } from './rules-fixture.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
let repos: ReposFolder | null = null;
let dataDir: string | null = null;
afterEach(() => {
  repos?.remove();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function hook(tier: number, payload: unknown, env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const p = spawn(process.execPath, [BIN, 'hook', 'pre-tool-use'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dataDir!,
        WATCHKEEPER_DATA_DIR: dataDir!,
        WATCHKEEPER_EMBEDDINGS: 'off',
        WATCHKEEPER_REPOS_DIR: repos!.dir,
        WATCHKEEPER_TIER: String(tier),
        ...env,
      },
    });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stderr }));
    p.stdin.end(JSON.stringify(payload));
  });
}

/** The rules repositories and a data folder for the test; a playbook run in `infra`. */
function ansiblePlaybookCall() {
  repos = rulesRepos();
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-hook-'));
  const infra = join(repos.dir, 'infra');
  const run = {
    tool_name: 'Bash',
    tool_input: { command: 'ansible-playbook site.yml' },
    cwd: infra,
  };
  return { infra, run, reposDir: repos.dir, data: dataDir };
}

it('refuses a tier-1 ansible-playbook citing the manifest, lets tier 3 run it, refuses an Edit into a read-only repository', async () => {
  const { infra, run, reposDir, data } = ansiblePlaybookCall();
  const refused = await hook(1, run);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(
    `refused: "\`ansible-playbook\` requires tier 3" (${infra}/CLAUDE-OPS.md line 12); this session is tier 1`,
  );
  expect(await hook(3, run)).toEqual({ code: 0, stderr: '' });
  const edit = {
    tool_name: 'Edit',
    tool_input: { file_path: join(reposDir, 'docs/notes.md'), old_string: 'a', new_string: 'b' },
    cwd: '/tmp',
  };
  const blocked = await hook(3, edit);
  expect(blocked.code).toBe(2);
  expect(blocked.stderr).toContain(
    `"Read-only: never modify files here" (${reposDir}/docs/CLAUDE-OPS.md line 11)`,
  );
  // The operator sees each refusal among the events.
  const stores = openStores(join(data, 'watchkeeper.db'));
  try {
    const messages = stores.events.list({ source: 'system' }).map((e) => e.message);
    expect(messages).toEqual([
      expect.stringContaining('Blocked by a runbook rule: "Read-only: never modify files here"'),
      expect.stringContaining('Blocked by a runbook rule: "`ansible-playbook` requires tier 3"'),
    ]);
  } finally {
    stores.close();
  }
});

it("holds a session's rules from the folder its runner set, whatever else the environment holds", async () => {
  const { run } = ansiblePlaybookCall();
  // The session's runner resolved the settings when it started; a setting the hook cannot read
  // (the CLI passes the environment on) does not switch the rules off.
  const refused = await hook(1, run, {
    WATCHKEEPER_SESSION_ID: '7',
    WATCHKEEPER_PORT: 'not-a-port',
  });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('`ansible-playbook` requires tier 3');
  expect(
    await hook(1, { ...run, tool_input: { command: 'ls' } }, { WATCHKEEPER_SESSION_ID: '7' }),
  ).toEqual({
    code: 0,
    stderr: '',
  });
});

it('has the session ask the hook before file reads and edits only when there are repositories', () => {
  const matchers = (fileTools: boolean) =>
    (
      hookSettings({}, '/usr/bin/node', null, fileTools) as {
        hooks: { PreToolUse: { matcher: string }[] };
      }
    ).hooks.PreToolUse.map((e) => e.matcher);
  expect(matchers(true)).toContain('Read|Edit|MultiEdit|Write|NotebookEdit');
  expect(matchers(false)).toEqual(['Bash', '^mcp__(?!watchkeeper__)']);
});
