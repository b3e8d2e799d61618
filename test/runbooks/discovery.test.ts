/**
 * Discovery over a real repos folder: manifests, `.claude-ops` documents and MCP servers, the
 * README of a repository without a manifest, what a broken file costs (a warning, nothing else)
 * and an operator's document replacing the built-in one of the same name.
 */
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import {
  allowedAt,
  discoverRunbooks,
  DOC_KINDS,
  LIBRARY_DIR,
  lintRunbooks,
} from '../../src/runbooks/index.js';
import { FILES, reposFolder, type ReposFolder } from './repos-fixture.js';

let repos: ReposFolder;
afterEach(() => repos.remove());

describe('runbooks discovery', () => {
  it('reads each repository: manifest, documents, MCP servers; README without a manifest', async () => {
    repos = reposFolder();
    const r = await discoverRunbooks({ reposDir: repos.dir });
    expect(r.warnings).toEqual([]);
    expect(r.repositories.map((x) => x.name)).toEqual(['infra', 'media']);
    const [infra, media] = r.repositories;
    expect(infra!.manifest).toMatchObject({
      title: 'Claude Ops Manifest',
      summary: 'Ansible inventory and playbooks for the home lab.',
      kind: 'Ansible infrastructure',
      capabilities: [
        { name: 'service-discovery', description: expect.stringContaining('inventory/hosts.yaml') },
        { name: 'redeployment', description: expect.stringContaining('redeploy any service') },
      ],
      rules: ['Never modify files in this repo', 'Playbook runs require Opus tier (Tier 3)'],
      sections: [{ heading: 'Inventory', text: 'Services are grouped by host.' }],
    });
    expect(media!.manifest).toBeNull();
    expect(media!.readme).toBe('Docker Compose files for Jellyfin, Sonarr and Radarr.');
    expect(media!.listing).toEqual(['README.md', 'compose.yaml']);

    const backups = r.checks.find((c) => c.name === 'backups')!;
    expect(backups).toMatchObject({
      source: join(repos.dir, 'infra'),
      path: join(repos.dir, 'infra/.claude-ops/checks/backups.md'),
      applies: 'The restic backup of the NAS, every run.',
    });
    // Without a "When" section, the first paragraph says when it applies.
    expect(r.checks.find((c) => c.name === 'media-library')!.applies).toBe(
      'Verify the media library is mounted on the NAS.',
    );
    // The manifest's rule raises the repository's playbook above the tier it states.
    expect(r.playbooks.find((p) => p.name === 'fix-media-perms')!.minTier).toBe(3);
    expect(r.skills.find((s) => s.name === 'prune-old-logs')!.minTier).toBe(2);
    expect(r.mcpServers).toEqual([
      expect.objectContaining({ name: 'ansible-inventory', source: join(repos.dir, 'infra') }),
    ]);
  });

  it('replaces a built-in document by an operator one of the same name, keeps the others', async () => {
    repos = reposFolder();
    const r = await discoverRunbooks({ reposDir: repos.dir });
    // `backups` is also a built-in check: only the repository's is left.
    expect(r.checks.filter((c) => c.name === 'backups').map((c) => c.source)).toEqual([
      join(repos.dir, 'infra'),
    ]);
    expect(r.checks.find((c) => c.name === 'http')!.source).toBe('built-in');
    expect(r.playbooks.find((p) => p.name === 'restart-container')!.minTier).toBe(3);
    expect(r.skills.find((s) => s.name === 'ssh-access')!.source).toBe('built-in');
  });

  it('filters playbooks and skills to those a tier may follow', async () => {
    repos = reposFolder();
    const r = await discoverRunbooks({ reposDir: repos.dir });
    const t1 = allowedAt(r, 1);
    expect(t1.playbooks).toEqual([]);
    expect(t1.skills.map((s) => s.name)).toEqual(['ssh-access']);
    expect(t1.checks).toEqual(r.checks);
    expect(allowedAt(r, 2).playbooks.map((p) => p.name)).toEqual(['clear-disk']);
  });

  it('turns a broken manifest or mcp.json into warnings with lines, and uses the rest', async () => {
    repos = reposFolder({
      ...FILES,
      'infra/CLAUDE-OPS.md': '# Manifest\n\nNo kind here.\n\n## Capabilities\n\n- just words\n',
      'infra/.claude-ops/mcp.json': '{\n  "mcpServers": {\n    "a": {"command": "x"},\n  }\n}\n',
    });
    const r = await discoverRunbooks({ reposDir: repos.dir });
    const manifest = join(repos.dir, 'infra/CLAUDE-OPS.md');
    const mcp = join(repos.dir, 'infra/.claude-ops/mcp.json');
    expect(r.warnings).toEqual([
      { file: manifest, line: 7, message: 'a capability reads "- **name**: what it allows"' },
      { file: manifest, line: 1, message: expect.stringContaining('no "## Kind" section') },
      { file: mcp, line: 4, message: expect.stringContaining('not valid JSON') },
    ]);
    expect(r.repositories.map((x) => x.name)).toEqual(['infra', 'media']);
    expect(r.checks.some((c) => c.name === 'media-library')).toBe(true);
    expect(r.mcpServers).toEqual([]);
  });

  it("reads a skill's YAML front matter, as Claude Code's skills carry, and names a broken one", async () => {
    repos = reposFolder({
      ...FILES,
      'infra/.claude-ops/skills/rotate-keys.md': [
        '---',
        'name: rotate-keys',
        'description: When an API key is older than 90 days or has leaked.',
        '---',
        '# Rotate an API key',
        '',
        '**Minimum tier**: 3',
      ].join('\n'),
      'infra/.claude-ops/checks/broken-front.md': [
        '---',
        'description: [unclosed',
        '---',
        '# Broken',
        '',
        'Every run.',
      ].join('\n'),
    });
    const r = await discoverRunbooks({ reposDir: repos.dir });
    expect(r.skills.find((s) => s.name === 'rotate-keys')).toMatchObject({
      title: 'Rotate an API key',
      applies: 'When an API key is older than 90 days or has leaked.',
      minTier: 3,
    });
    // A front matter that is not YAML: a warning on its line; the Markdown after it still counts.
    expect(r.checks.find((c) => c.name === 'broken-front')).toMatchObject({
      title: 'Broken',
      applies: 'Every run.',
    });
    expect(r.warnings).toEqual([
      expect.objectContaining({
        file: join(repos.dir, 'infra/.claude-ops/checks/broken-front.md'),
        message: expect.stringContaining('the front matter is not YAML'),
      }),
    ]);
  });

  it('reads the disk afresh on every call: a repository added later is found', async () => {
    repos = reposFolder({ 'media/README.md': 'Compose files.\n' });
    expect((await discoverRunbooks({ reposDir: repos.dir })).repositories).toHaveLength(1);
    repos.write('new/CLAUDE-OPS.md', '# New\n\n## Kind\n\nHelm charts\n');
    const again = await discoverRunbooks({ reposDir: repos.dir });
    expect(again.repositories.map((x) => [x.name, x.manifest?.kind])).toEqual([
      ['media', undefined],
      ['new', 'Helm charts'],
    ]);
  });

  it('warns about a repos folder that cannot be read and still gives the built-in library', async () => {
    repos = reposFolder({});
    const r = await discoverRunbooks({ reposDir: join(repos.dir, 'missing') });
    expect(r.warnings).toEqual([
      { file: join(repos.dir, 'missing'), line: 0, message: expect.stringContaining('ENOENT') },
    ]);
    expect(r.checks.length).toBeGreaterThanOrEqual(8);
  });

  it('ships a built-in library that lints clean and states what each document needs', async () => {
    repos = reposFolder({});
    for (const kind of DOC_KINDS) expect(await lintRunbooks(join(LIBRARY_DIR, kind))).toEqual([]);
    const r = await discoverRunbooks({ reposDir: null });
    expect(r.warnings).toEqual([]);
    expect(r.checks.map((c) => c.name)).toEqual([
      'backups',
      'containers',
      'databases',
      'disks',
      'dns',
      'http',
      'systemd',
      'tls-certificates',
    ]);
    expect(r.playbooks.map((p) => [p.name, p.minTier])).toEqual([
      ['clear-disk', 2],
      ['redeploy-compose', 3],
      ['restart-container', 3],
      ['rollback-image', 3],
    ]);
    expect(r.skills.map((x) => x.name)).toEqual(['ssh-access']);
  });

  it('reads the repos folder from WATCHKEEPER_REPOS_DIR or Claude Ops CLAUDEOPS_REPOS_DIR', () => {
    repos = reposFolder({});
    expect(loadConfig({ WATCHKEEPER_REPOS_DIR: repos.dir }).runbooks.reposDir).toBe(repos.dir);
    const goNamed = loadConfig({ CLAUDEOPS_REPOS_DIR: '/srv/repos' });
    expect(goNamed.runbooks.reposDir).toBe('/srv/repos');
    expect(goNamed.runner.workdir).toBe('/srv/repos');
    expect(loadConfig({}).runbooks.reposDir).toBeNull();
  });
});
