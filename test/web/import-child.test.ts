/**
 * An upload imported by a child process (`watchkeeper import FILE --json`), as serve does on
 * PostgreSQL: the dashboard's preview and confirmation and the API answer the reports an import
 * in process gives, hold serve's event loop for no statement (this file also runs on
 * PostgreSQL), and what the child wrote is on the pages right after. A file the child refuses is
 * refused as in process. Needs dist/.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { importInChildProcess } from '../../src/cli/import-child.js';
import { testDatabaseUrl } from '../helpers/db.js';
import { blockingDuring } from '../helpers/postgres.js';
import {
  EXPORT_WITH_A_BAD_LINE,
  htmxHeaders,
  type SignedIn,
  TOKEN,
  type WebHarness,
  webHarness,
} from '../helpers/web.js';

let h: WebHarness;
let auth: SignedIn;
beforeEach(async () => {
  h = webHarness({
    // serve's environment, as serve hands it to the child: the same data folder and store.
    importFile: (dataDir) => {
      const url = testDatabaseUrl(dataDir);
      return importInChildProcess({
        HOME: process.env.HOME,
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_EMBEDDINGS: 'off',
        ...(url ? { WATCHKEEPER_DATABASE_URL: url } : {}),
      });
    },
  });
  auth = await h.login();
});
afterEach(() => h.close());

const bearer = { Authorization: `Bearer ${TOKEN}` };

/** The request's answer, and how many statements held the event loop while it was answered. */
async function asked(path: string, init: RequestInit) {
  let status = 0;
  let body = '';
  const blocked = await blockingDuring(h.stores.db, async () => {
    const res = await h.request(path, init);
    status = res.status;
    body = await res.text();
  });
  return { status, body, blocked };
}

describe('an upload imported by a child process', () => {
  it('previews and imports on the dashboard without holding the event loop', async () => {
    const form = new FormData();
    form.append('file', new File([EXPORT_WITH_A_BAD_LINE], 'memories.jsonl'));
    const preview = await asked('/memories/import', {
      method: 'POST',
      body: form,
      headers: htmxHeaders(auth),
    });
    expect(preview).toMatchObject({ status: 200, blocked: 0 });
    expect(preview.body).toContain('Dry run of memories.jsonl');
    expect(preview.body).toMatch(
      /<td class="num">3<\/td><td>line<\/td><td>refused<\/td><td><\/td><td>not JSON/,
    );
    const token = /name="token" value="([0-9a-f]+)"/.exec(preview.body)![1]!;

    const done = await asked('/memories/import/confirm', {
      method: 'POST',
      body: new URLSearchParams({ token }),
      headers: htmxHeaders(auth, { 'Content-Type': 'application/x-www-form-urlencoded' }),
    });
    expect(done).toMatchObject({ status: 200, blocked: 0 });
    expect(done.body).toContain('Imported memories.jsonl');
    const page = await h.request('/memories', { headers: { Cookie: auth.cookie } });
    expect(await page.text()).toContain('vacuum runs nightly at 02:00');
  });

  it('answers the API with the report, for an export and an MCP memory file alike', async () => {
    const dry = await asked('/api/v1/memories/import?dry_run=true', {
      method: 'POST',
      body: EXPORT_WITH_A_BAD_LINE,
      headers: { ...bearer, 'Content-Type': 'application/x-ndjson' },
    });
    expect(dry).toMatchObject({ status: 200, blocked: 0 });
    expect(JSON.parse(dry.body)).toMatchObject({
      format: 'watchkeeper-memory/1',
      dry_run: true,
      counts: { created: 1, refused: 1 },
      // A refusal is said as its line is read; a record, once its batch is judged.
      items: [
        { line: 3, action: 'refused', kind: 'line', text: null },
        { line: 2, action: 'created', kind: 'memory', text: 'vacuum runs nightly at 02:00' },
      ],
    });
    expect(await h.stores.memories.count({ status: 'all' })).toBe(0);

    const mcp = JSON.stringify({
      type: 'entity',
      name: 'caddy',
      entityType: 'service',
      observations: ['Renews certificates on its own'],
    });
    const imported = await asked('/api/v1/memories/import', {
      method: 'POST',
      body: mcp,
      headers: { ...bearer, 'Content-Type': 'text/plain' },
    });
    expect(imported).toMatchObject({ status: 200, blocked: 0 });
    const report = JSON.parse(imported.body) as { items: { memory_id: number | null }[] };
    expect(report).toMatchObject({
      format: 'mcp-memory',
      dry_run: false,
      entities: { created: 1 },
      observations: { created: 1 },
    });
    const id = report.items.find((i) => i.memory_id !== null)!.memory_id!;
    const memory = await h.request(`/api/v1/memories/${id}`, { headers: bearer });
    expect(await memory.json()).toMatchObject({
      service: 'caddy',
      observation: 'Renews certificates on its own',
    });
  });

  it('refuses a file the child refuses, naming why, as an import in process does', async () => {
    const unknown = [JSON.stringify({ format: 'watchkeeper-memory/9', memories: 0 })].join('\n');
    const res = await h.request('/api/v1/memories/import', {
      method: 'POST',
      body: unknown,
      headers: { ...bearer, 'Content-Type': 'application/x-ndjson' },
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringMatching(/watchkeeper-memory\/9/) },
    });
  });
});
