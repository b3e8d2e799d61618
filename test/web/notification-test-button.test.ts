/**
 * "Send a test notification" is always on the Notifications page: without a target it is
 * disabled and names the settings that add one, and a post anyway gets that same reason.
 */
import { afterEach, expect, it } from 'vitest';

import { htmxHeaders, webHarness, type WebHarness } from '../helpers/web.js';

const REASON =
  'no notification target is configured: set WATCHKEEPER_NOTIFY_URLS or WATCHKEEPER_APPRISE_URLS';

let h: WebHarness | undefined;
afterEach(() => h?.close());

it('shows the button disabled with the reason, and the post answers with it', async () => {
  const sent: string[] = [];
  h = webHarness({
    notifications: () => ({
      targets: () => [],
      sendTest: (by) => sent.push(by),
      settings: { escalationTier: 3, dedupWindowMs: 0, rateLimitPerHour: 0, retries: 0 },
    }),
  });
  const auth = await h.login();
  const page = await (
    await h.request('/notifications', { headers: { Cookie: auth.cookie } })
  ).text();
  expect(page).toMatch(/<button type="submit" disabled[^>]*>Send a test notification<\/button>/);
  expect(page).toContain(`${REASON}.`);

  const res = await h.request('/notifications/test', {
    method: 'POST',
    headers: htmxHeaders(auth),
  });
  expect(res.status).toBe(409);
  expect(await res.text()).toContain(REASON);
  expect(sent).toEqual([]);
});

it('says the same when notifications are not set up at all', async () => {
  h = webHarness();
  const auth = await h.login();
  const page = await (
    await h.request('/notifications', { headers: { Cookie: auth.cookie } })
  ).text();
  expect(page).toContain('Send a test notification');
  const res = await h.request('/notifications/test', {
    method: 'POST',
    headers: htmxHeaders(auth),
  });
  expect(res.status).toBe(409);
  expect(await res.text()).toContain(REASON);
});
