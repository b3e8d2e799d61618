/**
 * Run now on the Overview: the Sessions form's route and CSRF with tier 1 and no prompt, and the
 * same answer (the queued notice, or the error) shown in place.
 */
import { expect, it } from 'vitest';

import { eachTestSignedIn, htmxHeaders, type SignedIn, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const run = (form: URLSearchParams) =>
  h.request('/sessions/trigger', {
    method: 'POST',
    body: form,
    headers: htmxHeaders(auth, { 'Content-Type': 'application/x-www-form-urlencoded' }),
  });

/** The fields the Overview's Run now form posts, read from the page itself. */
async function overviewForm(): Promise<URLSearchParams> {
  const html = await (await h.request('/', { headers: { Cookie: auth.cookie } })).text();
  const form = /<form id="overview-run"[^>]*action="\/sessions\/trigger"[\s\S]*?<\/form>/.exec(
    html,
  );
  expect(form).not.toBeNull();
  expect(form![0]).toContain('>Run now</button>');
  expect(form![0]).not.toContain('name="prompt"');
  const fields = new URLSearchParams();
  for (const m of form![0].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(m[1]!, m[2]!);
  }
  return fields;
}

it('queues a tier 1 run with the tier prompt and says it is queued', async () => {
  const fields = await overviewForm();
  expect(fields.get('_csrf')).toBe(auth.csrf);
  const res = await run(fields);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('<p class="notice" role="status">Queued (request ticket-1)');
  expect(h.runner.requests).toEqual([
    { trigger: 'manual', startTier: 1, prompt: null, alert: null },
  ]);
});

it('shows a full queue as the Sessions form does', async () => {
  h.runner.queueLimit = 0;
  const res = await run(await overviewForm());
  expect(res.status).toBe(409);
  expect(await res.text()).toMatch(/<p class="error" role="alert">the run queue is full/);
});
