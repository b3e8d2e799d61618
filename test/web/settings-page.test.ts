/**
 * The Settings page: the version, and every setting in effect with where it came from (a
 * watchkeeper name, a Claude Ops alias, the default); secrets masked, never in an attribute.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { packageVersion } from '../../src/config/package-root.js';
import { TOKEN, type WebHarness, webHarness } from '../helpers/web.js';

let h: WebHarness;
afterEach(() => h.close());

const APPRISE = 'tgram://123456:bot-secret-token/987654';
const EMBEDDINGS = 'http://embed-user:embed-secret-pass@127.0.0.1:11434';

/** The text of the table row of one setting. */
function row(html: string, name: string): string {
  const m = new RegExp(`<tr>\\s*<td[^>]*><code>${name}</code></td>([\\s\\S]*?)</tr>`).exec(html);
  return (m?.[1] ?? '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe('GET /settings', () => {
  it('shows each setting, where it came from, and masks the secrets', async () => {
    h = webHarness({
      env: {
        CLAUDEOPS_APPRISE_URLS: APPRISE,
        CLAUDEOPS_INTERVAL: '900',
        WATCHKEEPER_EMBEDDINGS: 'ollama',
        WATCHKEEPER_EMBEDDINGS_URL: EMBEDDINGS,
      },
    });
    const auth = await h.login();
    const res = await h.request('/settings', { headers: { Cookie: auth.cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`watchkeeper ${packageVersion()}`);
    expect(html).toMatch(/<a href="\/settings" class="active">Settings<\/a>/);
    expect(row(html, 'WATCHKEEPER_APPRISE_URLS')).toBe(
      '•••••• (set, hidden) CLAUDEOPS_APPRISE_URLS',
    );
    expect(row(html, 'WATCHKEEPER_AUTH_TOKEN')).toBe('•••••• (set, hidden) WATCHKEEPER_AUTH_TOKEN');
    expect(row(html, 'WATCHKEEPER_SCHEDULE')).toBe('*/15 * * * * CLAUDEOPS_INTERVAL');
    expect(row(html, 'WATCHKEEPER_EMBEDDINGS_URL')).toBe(
      'http://embed-user:••••••@127.0.0.1:11434 WATCHKEEPER_EMBEDDINGS_URL',
    );
    expect(row(html, 'WATCHKEEPER_MAX_TIER')).toBe('3 default');
    for (const secret of ['bot-secret-token', 'embed-secret-pass', TOKEN]) {
      expect(html).not.toContain(secret);
    }
  });

  it("answers Claude Ops' /config address with the Settings page", async () => {
    h = webHarness();
    const auth = await h.login();
    const res = await h.request('/config', { headers: { Cookie: auth.cookie } });
    expect(res.status).toBe(301);
    expect(res.headers.get('Location')).toBe('/settings');
  });

  it('needs a sign-in', async () => {
    h = webHarness();
    const res = await h.request('/settings');
    expect(res.status).not.toBe(200);
  });
});
