/**
 * Operator and monitoring input at the web edge: a blank alert queues nothing, control
 * characters are refused naming the field (while a browser's CRLF line ends are not), list
 * filters that are not understood get the same answer for memories as for events, and a
 * malformed escape under /static is a 404, not a 500.
 */
import { describe, expect, it } from 'vitest';

import { eachTestSignedIn, type SignedIn, TOKEN, type WebHarness } from '../helpers/web.js';
import { seedMemory } from '../helpers/db.js';

let h: WebHarness;
let auth: SignedIn;
eachTestSignedIn((web) => ({ h, auth } = web));

const bearer = { Authorization: `Bearer ${TOKEN}` };
const postJson = (path: string, body: unknown) =>
  h.request(`/api/v1${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { ...bearer, 'Content-Type': 'application/json' },
  });
const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; message: string; field?: string } }).error;
const htmxForm = (method: string, path: string, fields: Record<string, string>) =>
  h.request(path, {
    method,
    body: new URLSearchParams(fields),
    headers: {
      Cookie: auth.cookie,
      'X-CSRF-Token': auth.csrf,
      'HX-Request': 'true',
      'Content-Type': 'application/x-www-form-urlencoded',
    },
  });

describe('the webhook', () => {
  it('refuses a blank text field instead of queueing the whole document', async () => {
    for (const body of [{ text: '' }, { text: '  \n ' }, { text: ' ', labels: { a: 'b' } }]) {
      const res = await postJson('/webhook', body);
      expect(res.status).toBe(422);
      expect(await errorOf(res)).toMatchObject({
        field: 'text',
        message: 'text: the alert is empty',
      });
    }
    const blankMessage = await postJson('/webhook', { message: '', summary: 'x' });
    expect(blankMessage.status).toBe(202); // the first field with words in it is the alert
    expect(h.runner.requests.map((r) => r.alert)).toEqual(['x']);
  });

  it('refuses control characters in the alert text, naming the field; CRLF is a line end', async () => {
    const res = await postJson('/webhook', { message: 'disk full\u001b[2J' });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toMatchObject({
      field: 'message',
      message: 'message: contains the control character U+001B at position 9',
    });
    const plain = await h.request('/api/v1/webhook', {
      method: 'POST',
      body: 'nginx down\u0000',
      headers: { ...bearer, 'Content-Type': 'text/plain' },
    });
    expect(await errorOf(plain)).toMatchObject({ field: 'text' });
    const doc = await postJson('/webhook', { labels: { name: 'a\u202Eb' } });
    expect(await errorOf(doc)).toMatchObject({ field: 'body' });
    expect(h.runner.requests).toEqual([]);
    const crlf = await h.request('/api/v1/webhook', {
      method: 'POST',
      body: 'nginx down\r\nsince 10:02\r\n',
      headers: { ...bearer, 'Content-Type': 'text/plain' },
    });
    expect(crlf.status).toBe(202);
    expect(h.runner.requests.map((r) => r.alert)).toEqual(['nginx down\nsince 10:02']);
  });
});

describe('Run now', () => {
  it('refuses a prompt with a control character, from the form and the API, queueing nothing', async () => {
    const form = await htmxForm('POST', '/sessions/trigger', {
      tier: '1',
      prompt: 'check\u0007 db',
    });
    expect(form.status).toBe(422);
    expect(await form.text()).toContain('prompt: contains the control character U+0007');
    const api = await postJson('/sessions', { prompt: 'a\u0085b' });
    expect(api.status).toBe(422);
    expect(await errorOf(api)).toMatchObject({ field: 'prompt' });
    expect(h.runner.requests).toEqual([]);
  });

  it('takes a multi-line prompt from a textarea (sent with CRLF line ends)', async () => {
    const res = await h.request('/sessions/trigger', {
      method: 'POST',
      body: new URLSearchParams({ tier: '1', prompt: 'check db\r\nthen the proxy' }),
      headers: {
        Cookie: auth.cookie,
        'X-CSRF-Token': auth.csrf,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
    });
    expect(res.status).toBe(303);
    expect(h.runner.requests.map((r) => r.prompt)).toEqual(['check db\nthen the proxy']);
  });
});

describe('memory forms', () => {
  it('refuses control characters in the wording and the service, naming the field', async () => {
    const create = await htmxForm('POST', '/memories', {
      category: 'timing',
      service: 'db',
      observation: 'Slow\u001b start',
    });
    expect(create.status).toBe(422);
    expect(await create.text()).toContain('observation: contains the control character U+001B');
    const service = await postJson('/memories', {
      category: 'timing',
      service: 'db\u0000',
      observation: 'Slow start',
    });
    expect(service.status).toBe(422);
    expect(await errorOf(service)).toMatchObject({ field: 'service' });
    expect(await h.stores.memories.count({ status: 'all' })).toBe(0);
  });

  it('keeps a multi-line edit from the textarea, and refuses a control character in it', async () => {
    const m = seedMemory(h, { service: 'db', category: 'timing', observation: 'Slow start' });
    const bad = await htmxForm('PUT', `/memories/${m.id}`, { observation: 'Slow\u0008 start' });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('observation: contains the control character U+0008');
    expect(h.stores.memories.get(m.id)!.observation).toBe('Slow start');
    const ok = await htmxForm('PUT', `/memories/${m.id}`, {
      observation: 'Slow start\r\nafter upgrades',
    });
    expect(ok.status).toBe(200);
    expect(h.stores.memories.get(m.id)!.observation).toBe('Slow start\nafter upgrades');
  });
});

describe('memory list filters, the same rule as event filters', () => {
  it('answers the API 400 naming the field', async () => {
    for (const [qs, field] of [
      ['status=weird', 'status'],
      ['category=gossip', 'category'],
    ] as const) {
      const res = await h.request(`/api/v1/memories?${qs}`, { headers: bearer });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatchObject({ code: 'usage', field });
      const events = await h.request(`/api/v1/events?level=weird`, { headers: bearer });
      expect(events.status).toBe(400);
    }
    expect((await h.request('/api/v1/memories?status=Inactive', { headers: bearer })).status).toBe(
      200,
    );
  });

  it('shows the page with the value ignored and says so, as the Events page does', async () => {
    seedMemory(h, { service: 'db', category: 'timing', observation: 'Slow start' });
    const res = await h.request('/memories?status=weird', { headers: { Cookie: auth.cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Ignored: status "weird" (must be one of all, active, inactive).');
    expect(html).toContain('Slow start');
  });
});

describe('static files', () => {
  it('answers a malformed escape with 404, without a credential', async () => {
    for (const path of ['/static/%E0%A4%A', '/static/%', '/static/app%zz.css', '/static/%00.js']) {
      const res = await h.request(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
    expect((await h.request('/static/app.css')).status).toBe(200);
  });
});
