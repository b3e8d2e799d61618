/**
 * What a session is told about the runbooks, checked on what the fixture CLI was handed: the
 * manifests and the checks at every tier, the playbooks only where the tier allows them, the
 * repositories' MCP servers beside the memory tools, and a section that keeps to its budget.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { discoverRunbooks, runbooksSection } from '../../src/runbooks/index.js';
import type { SessionRequest } from '../../src/runner/session-runner.js';
import { runnerHarness, type RunnerHarness } from '../helpers/runner.js';
import { reposFolder, type ReposFolder } from './repos-fixture.js';

let h: RunnerHarness | undefined;
let repos: ReposFolder;
afterEach(async () => {
  await h?.close();
  h = undefined;
  repos.remove();
});

const request = (tier: 1 | 2 | 3): SessionRequest => ({
  trigger: 'manual',
  tier,
  prompt: 'ok',
  parentSessionId: null,
  handoff: null,
  alert: null,
});
const handed = (sessionId: number) => {
  const r = JSON.parse(
    readFileSync(join(h!.dataDir, 'fake-claude', `${sessionId}.json`), 'utf8'),
  ) as { files: Record<string, { content: string }> };
  return {
    system: r.files['--append-system-prompt-file']!.content,
    mcp: JSON.parse(r.files['--mcp-config']!.content) as { mcpServers: Record<string, unknown> },
  };
};

describe('the runbooks in a session', () => {
  it('gives manifests and checks at every tier, playbooks where allowed, repository MCP servers', async () => {
    repos = reposFolder();
    h = runnerHarness({ WATCHKEEPER_REPOS_DIR: repos.dir });
    const first = (await h.runSession(request(1))).sessionId;
    const t1 = handed(first);
    expect(t1.system).toContain('## Runbooks');
    expect(t1.system).toContain(`- infra (${join(repos.dir, 'infra')}): Ansible infrastructure.`);
    expect(t1.system).toContain('Rules (follow them): Never modify files in this repo;');
    expect(t1.system).toContain(
      `- backups: The restic backup of the NAS, every run. (${join(repos.dir, 'infra/.claude-ops/checks/backups.md')})`,
    );
    expect(t1.system).toMatch(/- media \(.*, no CLAUDE-OPS\.md\): README: Docker Compose files/);
    expect(t1.system).toMatch(/- ssh-access \[tier 1\+\]/);
    expect(t1.system).not.toContain('restart-container');
    // The session page shows what the CLI was handed.
    expect(h.stores.sessionRecords.systemPrompt(first)).toBe(t1.system);
    expect(Object.keys(t1.mcp.mcpServers)).toEqual(['ansible-inventory', 'watchkeeper']);

    const t3 = handed((await h.runSession(request(3))).sessionId);
    expect(t3.system).toMatch(/- restart-container \[tier 3\+\]: .*restart-container\.md\)/);
    expect(t3.system).toMatch(/- fix-media-perms \[tier 3\+\]/);
  });

  it('keeps the section within the tier budget, the rules first, and says what was left out', async () => {
    repos = reposFolder();
    const r = await discoverRunbooks({ reposDir: repos.dir });
    const full = runbooksSection(r, 3, 100_000);
    const small = runbooksSection(r, 3, 1200);
    expect(small.length).toBeLessThanOrEqual(1200);
    expect(small.length).toBeLessThan(full.length);
    expect(small).toContain('Rules (follow them)');
    expect(small).toMatch(/\(\d+ more left out for room/);
    expect(runbooksSection(r, 3, 0)).toBe('');
  });

  it("keeps the repositories' own checks before the built-in ones when not all fit", async () => {
    repos = reposFolder();
    const r = await discoverRunbooks({ reposDir: repos.dir });
    const full = runbooksSection(r, 1, 100_000);
    const checks = full.indexOf('### Checks');
    // Room for the checks heading and a few of the lines under it.
    const small = runbooksSection(r, 1, checks + 450);
    expect(small).toMatch(/\(\d+ more left out for room/);
    expect(small).toContain('- backups: The restic backup');
    expect(small).toContain('- media-library: Verify the media library');
  });

  it('never leaves a heading with nothing under it, nor a rule without its repository', async () => {
    repos = reposFolder();
    const r = await discoverRunbooks({ reposDir: repos.dir });
    const full = runbooksSection(r, 3, 100_000);
    for (let budget = 600; budget <= full.length; budget += 25) {
      const lines = runbooksSection(r, 3, budget).split('\n');
      const bare = lines.filter((l, i) => l.startsWith('### ') && !lines[i + 1]?.startsWith('- '));
      // A repository's rules or capabilities only right under that repository's line.
      const stray = lines.filter((l, i) => l.startsWith('  ') && !/^(- | {2})/.test(lines[i - 1]!));
      expect([budget, bare, stray]).toEqual([budget, [], []]);
    }
  });
});
