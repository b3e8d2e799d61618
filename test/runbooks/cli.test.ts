/**
 * `watchkeeper runbooks list | show | lint` through the real CLI (in process): the JSON a script
 * reads, a document as the agent gets it, and lint's `file:line: message` with exit 2.
 */
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { cliIn } from '../helpers/cli.js';
import { FILES, reposFolder, type ReposFolder } from './repos-fixture.js';

let repos: ReposFolder;
afterEach(() => repos.remove());

const cliFor = (dir: string | null) =>
  cliIn(undefined, undefined, dir ? { WATCHKEEPER_REPOS_DIR: dir } : {});

describe('watchkeeper runbooks', () => {
  it('list --json: every item with its name, source and path; --tier filters', async () => {
    repos = reposFolder();
    const { run } = cliFor(repos.dir);
    const all = await run(['runbooks', 'list', '--json']);
    expect(all.code).toBe(0);
    const j = JSON.parse(all.stdout);
    expect(Object.keys(j)).toEqual(
      expect.arrayContaining([
        'repositories',
        'checks',
        'playbooks',
        'skills',
        'mcpServers',
        'warnings',
      ]),
    );
    expect(j.repositories[0]).toMatchObject({
      name: 'infra',
      source: join(repos.dir, 'infra'),
      path: join(repos.dir, 'infra/CLAUDE-OPS.md'),
      kind: 'Ansible infrastructure',
    });
    expect(j.checks.find((c: { name: string }) => c.name === 'http')).toMatchObject({
      source: 'built-in',
      path: expect.stringMatching(/runbooks\/checks\/http\.md$/),
    });
    expect(j.playbooks.find((p: { name: string }) => p.name === 'fix-media-perms')).toMatchObject({
      source: join(repos.dir, 'infra'),
      minTier: 3,
    });
    expect(j.mcpServers).toEqual([
      {
        name: 'ansible-inventory',
        source: join(repos.dir, 'infra'),
        path: join(repos.dir, 'infra/.claude-ops/mcp.json'),
        transport: 'stdio',
      },
    ]);
    // A server's env is never printed: it holds credentials.
    expect(all.stdout).not.toContain('secret-token');

    const t2 = JSON.parse((await run(['runbooks', 'list', '--tier', '2', '--json'])).stdout);
    expect(t2.playbooks.map((p: { name: string }) => p.name)).toEqual(['clear-disk']);
    expect(t2.skills.map((s: { name: string }) => s.name)).toEqual([
      'prune-old-logs',
      'ssh-access',
    ]);

    const text = await run(['runbooks', 'list']);
    expect(text.stdout).toMatch(/infra\s+Ansible infrastructure/);
    expect(text.stdout).toMatch(/fix-media-perms\s+3\+/);
  });

  it('show NAME: the full text with its path; an unknown name exits 2', async () => {
    repos = reposFolder();
    const { run } = cliFor(repos.dir);
    const own = await run(['runbooks', 'show', 'backups']);
    expect(own.code).toBe(0);
    expect(own.stdout).toBe(
      `==> ${join(repos.dir, 'infra/.claude-ops/checks/backups.md')} (check, ${join(repos.dir, 'infra')})\n` +
        FILES['infra/.claude-ops/checks/backups.md'],
    );
    const builtIn = await run(['runbooks', 'show', 'playbooks/restart-container']);
    expect(builtIn.stdout).toMatch(
      /^==> .*restart-container\.md \(playbook, built-in, minimum tier 3\)/,
    );
    expect(builtIn.stdout).toContain('[COOLDOWN:restart:service]');
    const unknown = await run(['runbooks', 'show', 'no-such-check']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no check, playbook or skill is named "no-such-check"');
  });

  it('lint: file:line: message for each problem and exit 2; a clean folder exits 0', async () => {
    repos = reposFolder();
    const { run } = cliFor(repos.dir);
    const clean = await run(['runbooks', 'lint']);
    expect(clean).toMatchObject({ code: 0, stdout: `${repos.dir}: no problems found\n` });

    repos.write(
      'infra/CLAUDE-OPS.md',
      '# Manifest\n\n## Kind\n\n## Capabilities\n\n- **a**: b\n\n## Rules\n\n- Restarts need tier 5\n',
    );
    repos.write(
      'infra/.claude-ops/playbooks/no-tier.md',
      '# Playbook: X\n\n## When to use\n\nAlways.\n',
    );
    const manifest = join(repos.dir, 'infra/CLAUDE-OPS.md');
    const bad = await run(['runbooks', 'lint', manifest]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe(
      `${manifest}:3: Kind is empty: say what the repository is\n` +
        `${manifest}:11: there is no tier 5: tiers are 1 to 3\n`,
    );
    const folder = await run(['runbooks', 'lint', join(repos.dir, 'infra/.claude-ops')]);
    expect(folder.code).toBe(2);
    expect(folder.stdout).toContain(
      `${join(repos.dir, 'infra/.claude-ops/playbooks/no-tier.md')}:1: no minimum tier`,
    );
    const all = await run(['runbooks', 'lint']);
    expect(all.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('lint without PATH or WATCHKEEPER_REPOS_DIR, or of a missing path, exits 2', async () => {
    repos = reposFolder({});
    const none = await cliFor(null).run(['runbooks', 'lint']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('WATCHKEEPER_REPOS_DIR');
    const missing = await cliFor(null).run(['runbooks', 'lint', join(repos.dir, 'nope')]);
    expect(missing.code).toBe(2);
  });
});
