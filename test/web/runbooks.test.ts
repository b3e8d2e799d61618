/**
 * The Runbooks page over HTTP: every repository with its manifest and documents, a warning for
 * a broken manifest, the built-in library, each check's last reported outcome, everything
 * escaped and no MCP server's secrets.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';

import { type SignedIn, webHarness, type WebHarness } from '../helpers/web.js';
import { reposFolder, type ReposFolder } from '../runbooks/repos-fixture.js';

let h: WebHarness;
let auth: SignedIn;
let repos: ReposFolder;
beforeEach(async () => {
  repos = reposFolder();
  h = webHarness({ env: { WATCHKEEPER_REPOS_DIR: repos.dir } });
  auth = await h.login();
});
afterEach(() => {
  h.close();
  repos.remove();
});

const get = async () => {
  const res = await h.request('/runbooks', { headers: { Cookie: auth.cookie } });
  expect(res.status).toBe(200);
  return res.text();
};

/** The row of one check, playbook or skill. */
const row = (page: string, kind: string, name: string) =>
  new RegExp(`<tr class="runbook-${kind}" data-name="${name}">([\\s\\S]*?)</tr>`).exec(page)?.[1];

it('lists every repository with its manifest, documents and MCP servers, then the built-in library', async () => {
  const page = await get();
  expect(page).toContain('<a href="/runbooks" class="active">Runbooks</a>');
  expect(page).toContain('id="repo-infra"');
  expect(page).toContain('id="repo-media"');
  expect(page).toContain('Ansible infrastructure');
  expect(page).toContain('<strong>service-discovery</strong>');
  expect(page).toContain('<li>Never modify files in this repo</li>');
  // The README's sentence ends the line as written, without a second full stop.
  expect(page).toContain('Docker Compose files for Jellyfin, Sonarr and Radarr.</p>');
  // The manifest's "Playbook runs require Tier 3" raises the playbook's stated tier 2.
  expect(row(page, 'playbook', 'fix-media-perms')).toContain('<td>3</td>');
  expect(row(page, 'playbook', 'fix-media-perms')).toContain(
    `${repos.dir}/infra/.claude-ops/playbooks/fix-media-perms.md`,
  );
  expect(page).toContain('<code>ansible-inventory</code> (stdio)');
  expect(page).not.toContain('secret-token');
  const library = page.slice(page.indexOf('id="built-in"'));
  expect(row(library, 'playbook', 'restart-container')).toContain('<td>3</td>');
});

it('shows a warning for a broken manifest, escaped', async () => {
  repos.write('broken/CLAUDE-OPS.md', '## Rules\n\n- <script>alert(1)</script>\n');
  const page = await get();
  expect(page).toContain('id="repo-broken"');
  expect(page).toContain(`${repos.dir}/broken/CLAUDE-OPS.md:1: no title`);
  expect(page).toContain('no &quot;## Kind&quot; section');
  expect(page).toContain('<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>');
  expect(page).not.toContain('<script>alert(1)</script>');
});

it("shows each check's last reported outcome, the newest of health and events", async () => {
  const session = h.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: h.clock.now() });
  h.stores.events.insert({
    sessionId: session,
    source: 'agent',
    level: 'warning',
    service: 'backups',
    message: 'no snapshot in 30 hours',
    createdAt: h.clock.now() - 60_000,
  });
  await h.stores.sessionRecords.recordChecks(
    session,
    [{ service: 'backups', health: 'down', detail: 'restic repository locked', source: 'marker' }],
    h.clock.now(),
  );
  const page = await get();
  const backups = row(page, 'check', 'backups')!;
  // Coloured as on the Services page: down is critical, a warning event a warning.
  expect(backups).toContain('class="badge health-down critical"');
  expect(backups).toContain('>down</span>');
  expect(backups).toContain('title="restic repository locked"');
  expect(backups).toContain(`href="/sessions/${session}"`);
  expect(row(page, 'check', 'media-library')).toContain('never reported');
});
