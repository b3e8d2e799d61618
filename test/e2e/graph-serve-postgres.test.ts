/**
 * The memory graph in a running `serve` on PostgreSQL (the demo: the real CLI against the
 * simulated model): each ended session's log is indexed by a child process
 * (`watchkeeper graph index FILE --json`), whose round trips do not stop serve's event loop; so
 * is a file uploaded to the import API (`watchkeeper import FILE --json`).
 * A file of its own, so that it runs beside the SQLite one. Needs dist/.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { openStores } from '../../src/db/index.js';
import { type DemoServe, startDemoServe } from '../helpers/demo-serve.js';
import { freshDatabase, skipWithoutPostgres } from '../helpers/postgres.js';

skipWithoutPostgres();

const TOKEN = 'e2e-token-0123456789abcdef';

let serve: DemoServe | undefined;
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  serve?.cleanUp();
  serve = undefined;
  for (const drop of drops.splice(0)) await drop();
});

describe('the memory graph in serve on PostgreSQL', () => {
  it("indexes each ended session's log in a child process", async () => {
    const database = await freshDatabase();
    drops.push(database.drop);
    const demo = (serve = startDemoServe({
      WATCHKEEPER_EMBEDDINGS: 'off',
      WATCHKEEPER_LOG_LEVEL: 'debug',
      WATCHKEEPER_DATABASE_URL: database.url,
      WATCHKEEPER_AUTH_TOKEN: TOKEN,
    }));
    // Read beside serve once it has migrated the database (its first session has a row).
    await demo.until(() => demo.log().includes('graph: indexed'));
    const stores = openStores(database.url);
    try {
      const sessions = () =>
        (
          stores.db.prepare('SELECT session FROM graph_sessions ORDER BY session').all() as {
            session: string;
          }[]
        ).map((r) => r.session);
      await demo.until(() => sessions().length >= 3);
      expect(sessions()).toEqual(['wk-1', 'wk-2', 'wk-3']);
      // Each was indexed by a child, whose round trips serve's event loop never waited on. The
      // log line follows the child's exit, which follows its commit: wait for it too.
      const indexed = () =>
        demo
          .log()
          .split('\n')
          .filter((l) => l.includes('"msg":"graph: indexed"'));
      await demo.until(() => indexed().length >= 3);
      expect(indexed().length).toBeGreaterThanOrEqual(3);
      for (const line of indexed()) expect(line).toContain('"by":"a child process"');
    } finally {
      stores.close();
    }

    // An upload's import, by a child process of serve's.
    const url = /"dashboard":"(http:\/\/[^"]+?)\/?"/.exec(demo.log())![1]!;
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const imported = await fetch(`${url}/api/v1/memories/import`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'text/plain' },
      body: JSON.stringify({
        type: 'entity',
        name: 'caddy',
        entityType: 'service',
        observations: ['Renews certificates on its own'],
      }),
    });
    expect(imported.status).toBe(200);
    expect(await imported.json()).toMatchObject({
      format: 'mcp-memory',
      observations: { created: 1 },
    });
    const listed = await fetch(`${url}/api/v1/memories?service=caddy`, { headers });
    expect(await listed.text()).toContain('Renews certificates on its own');
    const code = await demo.stop();
    expect(code, demo.log().split('\n').slice(-15).join('\n')).toBe(0);
  }, 180_000);
});
