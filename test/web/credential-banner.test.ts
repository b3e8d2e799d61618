/**
 * Without a model credential every run fails to log in; every dashboard page says so, and which
 * variable to set, until one is configured (demo mode needs none and says it is a demo).
 */
import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { webHarness, type WebHarness } from '../helpers/web.js';

const PAGES = ['/', '/sessions', '/events', '/memories', '/cooldowns'];
const BANNER = 'No model credential is configured, so every run fails to log in';

let h: WebHarness;
afterEach(() => h.close());

async function pages(harness: WebHarness): Promise<string[]> {
  const { cookie } = await harness.login();
  const id = harness.stores.sessions.start({ trigger: 'manual', tier: 1, startedAt: 0 });
  const out: string[] = [];
  for (const path of [...PAGES, `/sessions/${id}`]) {
    const res = await harness.request(path, { headers: { Cookie: cookie } });
    expect([path, res.status]).toEqual([path, 200]);
    out.push(await res.text());
  }
  return out;
}

describe('the missing-credential banner', () => {
  it('is on every page while no credential is configured, naming the variable', async () => {
    h = webHarness();
    for (const html of await pages(h)) {
      expect(html).toContain(BANNER);
      expect(html).toContain('<code>ANTHROPIC_API_KEY</code>');
    }
  });

  it.each(['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'])(
    'is gone once %s is set',
    async (name) => {
      h = webHarness({ env: { [name]: 'sk-test-value' } });
      for (const html of await pages(h)) expect(html).not.toContain(BANNER);
    },
  );

  it('is not shown in demo mode, which needs no credential', async () => {
    h = webHarness({ demo: true });
    for (const html of await pages(h)) {
      expect(html).not.toContain(BANNER);
      expect(html).toContain('simulated model');
    }
  });

  it('counts a blank variable as unset', () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: '  ' }).modelCredentialConfigured).toBe(false);
    expect(loadConfig({ CLAUDE_CODE_USE_BEDROCK: '1' }).modelCredentialConfigured).toBe(true);
  });
});
