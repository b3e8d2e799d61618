/**
 * Events, grouped: Acknowledge is a quiet button, and "Acknowledge selected" acknowledges the
 * checked groups in one post: exactly those ids, or none when one of them does not exist.
 */
import { expect, it } from 'vitest';

import type { NewEvent } from '../../src/db/index.js';
import { eachTestSignedIn, htmxHeaders, type SignedIn, type WebHarness } from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const event = (message: string): NewEvent => ({
  sessionId: null,
  source: 'agent',
  level: 'warning',
  service: 'jellyfin',
  message,
  createdAt: h.clock.now(),
});

/** Three groups: their ids, in the order of `messages`. */
function groups(): number[] {
  const messages = ['slow /health', 'disk 91% full', 'cert expires in 9 days'];
  for (const m of messages) h.stores.events.insert(event(m));
  const all = h.stores.eventGroups.list();
  return messages.map((m) => all.find((g) => g.message === m)!.id);
}

const ackSelected = (ids: (number | string)[]) =>
  h.request('/events/groups/ack', {
    method: 'POST',
    body: new URLSearchParams(ids.map((id): [string, string] => ['ids', String(id)])),
    headers: htmxHeaders(auth, { 'Content-Type': 'application/x-www-form-urlencoded' }),
  });

const acked = () =>
  h.stores.eventGroups
    .list({ includeAcked: true })
    .filter((g) => g.acked)
    .map((g) => g.id)
    .sort((a, b) => a - b);

it('offers a checkbox per group, Acknowledge selected, and a quiet Acknowledge', async () => {
  const [first] = groups();
  const html = await (
    await h.request('/events?view=groups', { headers: { Cookie: auth.cookie } })
  ).text();
  expect(html).toContain(`<input type="checkbox" name="ids" value="${first}"`);
  expect(html).toContain('hx-post="/events/groups/ack"');
  expect(html).toContain('>Acknowledge selected</button>');
  expect(html).toContain(
    `<button type="button" hx-post="/events/groups/${first}/ack" hx-swap="none">Acknowledge</button>`,
  );
  expect(html).not.toMatch(/class="primary"[^>]*>Acknowledge</);
});

it('acknowledges exactly the given ids, with who', async () => {
  const [a, b, c] = groups();
  const res = await ackSelected([a!, c!]);
  expect(res.status).toBe(200);
  expect(res.headers.get('HX-Trigger')).toBe('events-changed');
  expect(acked()).toEqual([a!, c!].sort((x, y) => x - y));
  expect(h.stores.eventGroups.get(a!)!.ackedBy).toBe('dashboard (token sign-in)');
  expect(h.stores.eventGroups.get(b!)!.acked).toBe(false);
});

it('refuses the whole post when one id does not exist, and acknowledges none', async () => {
  const [a, b] = groups();
  const res = await ackSelected([a!, 99999, b!]);
  expect(res.status).toBe(404);
  expect(await res.text()).toContain('event group 99999 does not exist: nothing was acknowledged');
  expect(acked()).toEqual([]);
});

it('refuses an empty selection, an id that is not one, and a post without CSRF', async () => {
  const [a] = groups();
  expect((await ackSelected([])).status).toBe(422);
  expect((await ackSelected([a!, 'x1'])).status).toBe(422);
  const forged = await h.request('/events/groups/ack', {
    method: 'POST',
    body: new URLSearchParams({ ids: String(a) }),
    headers: {
      Cookie: auth.cookie,
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: 'http://localhost',
    },
  });
  expect(forged.status).toBe(403);
  expect(acked()).toEqual([]);
});
