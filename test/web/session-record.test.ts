/**
 * The session record on the dashboard: the chain summary's label on the sessions list and the
 * overview, "being written" while pending, the system prompt escaped, tokens per session and per
 * chain, and the latest health per service on the Services page.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { TOKEN, type WebHarness, webHarness } from '../helpers/web.js';

let h: WebHarness;
beforeEach(() => {
  h = webHarness();
});
afterEach(() => h.close());

const get = async (path: string) =>
  (await h.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();

function session(over: { parentSessionId?: number | null; tier?: number } = {}) {
  const id = h.stores.sessions.start({
    trigger: 'scheduled',
    tier: over.tier ?? 1,
    parentSessionId: over.parentSessionId ?? null,
    startedAt: 1_700_000_000_000,
  });
  return id;
}
const finish = (id: number, usage: Record<string, number>, response = 'done') =>
  h.stores.sessions.finish(id, {
    status: 'completed',
    endedAt: 1_700_000_060_000,
    usage,
    response,
  });

describe('session record on the dashboard', () => {
  it('labels a summary taken from the final response, and says when one is being written', async () => {
    const a = session();
    finish(a, { input_tokens: 1 });
    await h.stores.sessionRecords.setSummaryAwaited({
      sessionId: a,
      text: 'jellyfin is slow <b>again</b>.',
      source: 'final_response',
      status: 'done',
      error: 'no model is configured',
      jobId: null,
      at: 1,
    });
    const b = session();
    await h.stores.sessionRecords.summaryPendingAwaited(b, 2);

    const list = await get('/sessions');
    expect(list).toContain('jellyfin is slow &lt;b&gt;again&lt;/b&gt;.');
    expect(list).toMatch(
      /<span class="badge summary-source" title="no model is configured">from the final response<\/span>/,
    );
    expect(list).toContain('Summary being written…');
    // The overview's last run is b (the newest): its summary is still being written.
    expect(await get('/')).toMatch(
      /id="last-run-summary">[^<]*<span class="muted run-summary pending">/,
    );
  });

  it('says when a running session will get its summary', async () => {
    const running = session();
    expect(await get(`/sessions/${running}`)).toMatch(
      /id="session-summary">\s*<p class="muted">Written when the run ends\.<\/p>/,
    );
    finish(running, { input_tokens: 1 });
    expect(await get(`/sessions/${running}`)).not.toContain('Written when the run ends.');
  });

  it('shows tokens per session and per chain, the chain summary from its first session, and the prompt escaped', async () => {
    const root = session();
    finish(root, {
      input_tokens: 1000,
      output_tokens: 200,
      cache_read_input_tokens: 3000,
      cache_creation_input_tokens: 40,
    });
    const child = session({ parentSessionId: root, tier: 2 });
    finish(child, { input_tokens: 500, output_tokens: 20 });
    h.stores.sessionRecords.setSystemPrompt(child, '## Run context\n<script>alert(1)</script>');
    await h.stores.sessionRecords.setSummaryAwaited({
      sessionId: root,
      text: 'Two tiers looked at the database.',
      source: 'model',
      status: 'done',
      error: null,
      jobId: null,
      at: 3,
    });
    const page = await get(`/sessions/${child}`);
    expect(page).toContain('500 in · 20 out · 0 cache read · 0 cache write');
    expect(page).toContain('(chain: 1,500 in · 220 out · 3,000 cache read · 40 cache write)');
    expect(page).toContain('Two tiers looked at the database.');
    expect(page).toContain(`kept on its first session <a href="/sessions/${root}">#${root}</a>`);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert(1)');
  });

  it('shows token counts as whole numbers, even when the usage held a fraction', async () => {
    const a = session();
    finish(a, { input_tokens: 1200.5, output_tokens: 141.25 });
    const page = await get(`/sessions/${a}`);
    expect(page).toContain('1,201 in · 141 out · 0 cache read · 0 cache write');
    expect(page).not.toContain('141.25');
  });

  it('rolls the latest health of each service up on the Services page', async () => {
    const older = session();
    await h.stores.sessionRecords.recordChecks(
      older,
      [{ service: 'nas', health: 'down', detail: 'no ping', source: 'marker' }],
      1_000,
    );
    const newer = session();
    await h.stores.sessionRecords.recordChecks(
      newer,
      [
        { service: 'nas', health: 'healthy', detail: null, source: 'response' },
        { service: 'caddy', health: 'degraded', detail: 'slow', source: 'response' },
      ],
      2_000,
    );
    h.stores.services.ensure('nas', null, 1);
    h.stores.services.ensure('caddy', null, 1);
    const page = await get('/services');
    const row = (name: string) => new RegExp(`id="service-${name}"[\\s\\S]*?</tr>`).exec(page)![0];
    expect(row('nas')).toContain('>healthy</span>');
    expect(row('nas')).toContain(`href="/sessions/${newer}"`);
    expect(row('caddy')).toMatch(/title="slow">degraded<\/span>/);
    const detail = await get('/services/nas');
    expect(detail).toMatch(/id="service-health">[\s\S]*healthy[\s\S]*down[\s\S]*no ping/);
  });
});
