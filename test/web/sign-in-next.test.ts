/**
 * A wrong credential keeps the page that asked for sign-in: the re-rendered form still carries
 * `next`, so the correct sign-in that follows lands there rather than on the Overview.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';

import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
beforeEach(() => {
  h = webHarness();
});
afterEach(() => h.close());

const signIn = (token: string, next: string) =>
  h.request('/login', {
    method: 'POST',
    body: new URLSearchParams({ token, next }),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://localhost' },
  });

it('keeps next through a wrong credential and lands on the page asked for', async () => {
  const asked = await h.request('/memories?q=disk', { redirect: 'manual' });
  const login = asked.headers.get('Location') ?? '';
  expect(login).toMatch(/^\/login\?next=/);
  const next = new URL(login, 'http://localhost').searchParams.get('next') ?? '';
  expect(next).toMatch(/^\/memories/);

  const wrong = await signIn('wrong-token-wrong-token', next);
  expect(wrong.status).toBe(401);
  const form = await wrong.text();
  expect(form).toContain('Wrong credentials.');
  const kept = /name="next" value="([^"]*)"/.exec(form)?.[1] ?? '';
  expect(kept.replaceAll('&#39;', "'").replaceAll('&amp;', '&')).toBe(next);

  const right = await signIn(TOKEN, next);
  expect(right.status).toBe(303);
  expect(right.headers.get('Location')).toBe(next);
});
