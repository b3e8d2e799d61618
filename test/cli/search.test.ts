/** The semantic recall commands as a user runs them: search, context --query, services, reindex. */
import { rmSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import { cliIn } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function fresh(env: Record<string, string> = {}) {
  const cli = cliIn(undefined, undefined, env);
  dirs.push(cli.dataDir);
  return cli.run;
}

const add = (run: ReturnType<typeof fresh>, service: string, text: string) =>
  run(['memories', 'add', '--category', 'behavior', '--service', service, text]);

describe('semantic recall from the command line', () => {
  // Each command loads the real model, which takes many seconds on a busy machine.
  it('searches by meaning, reinforces a paraphrase, builds the block for an alert', async () => {
    const run = fresh();
    expect(
      (await add(run, 'home-net', 'network configuration resets after firmware upgrades')).code,
    ).toBe(0);
    await add(run, 'jellyfin', 'returns 5xx errors while the library scan runs');
    await add(run, 'postgresql', 'vacuum runs nightly at 02:00 and slows queries for ten minutes');

    const found = await run(['memories', 'search', 'WiFi keeps dropping', '--json']);
    expect(found.code).toBe(0);
    const answer = JSON.parse(found.stdout);
    expect(answer.mode).toBe('hybrid');
    expect(answer.results[0]).toMatchObject({
      service: 'home-net',
      observation: 'network configuration resets after firmware upgrades',
    });
    expect(answer.results[0].why.cosine).toBeGreaterThan(0.35);

    const again = await add(
      run,
      'jellyfin',
      'while the library scan runs it answers with 5xx errors',
    );
    expect(again.stdout).toMatch(/memory \d+ already says this: reinforced to 0\.8/);

    const block = await run(['context', '--query', 'ALERT: jellyfin 5xx above 5%', '--json']);
    const ctx = JSON.parse(block.stdout);
    expect(ctx.text).toContain('### jellyfin');
    expect(ctx.memories[0]).toMatchObject({ reason: 'relevant' });

    const table = await run(['memories', 'search', 'media server errors']);
    expect(table.stdout).toContain('jellyfin');

    const re = await run(['reindex']);
    expect(re.code).toBe(0);
    expect(re.stdout).toMatch(/^3 memories embedded with use-lite-512 in /);
  }, 180_000);

  it('lists services with what they are; the operator describes one', async () => {
    const run = fresh({ WATCHKEEPER_EMBEDDINGS: 'off' });
    await add(run, 'jellyfin', 'takes about 60 s to start after a restart');
    await add(run, 'my-app', 'writes its logs to /var/log/my-app');
    const list = JSON.parse((await run(['services', 'list', '--json'])).stdout);
    expect(list.map((s: { name: string }) => s.name)).toEqual(['jellyfin', 'my-app']);
    expect(list[0]).toMatchObject({ description_source: 'catalog', active_memories: 1 });
    expect(list[0].description).toMatch(/media server/i);
    expect(list[1]).toMatchObject({ description: null, description_source: null });

    expect((await run(['services', 'describe', 'my-app', 'the billing front end'])).code).toBe(0);
    const shown = JSON.parse((await run(['services', 'show', 'my-app', '--json'])).stdout);
    expect(shown).toMatchObject({
      description: 'the billing front end',
      description_source: 'operator',
    });
    // Its memories are found by what the service is.
    const found = JSON.parse((await run(['memories', 'search', 'billing', '--json'])).stdout);
    expect(found.mode).toBe('lexical');
    expect(found.results.map((r: { service: string }) => r.service)).toEqual(['my-app']);
  });

  it.each([
    [['memories', 'search', '  '], /needs a query/],
    [['memories', 'search', 'x', '--limit', '0'], /--limit must be from 1 to 100/],
    [
      ['memories', 'search', 'x', '--service', 'nosuch'],
      /service: no memory, event or cooldown names "nosuch"/,
    ],
    [['context', '--query', ''], /--query must not be empty/],
    [['services', 'show', 'nosuch'], /service "nosuch" is not known/],
    [['services', 'describe', 'x'], /needs a service name and a description/],
  ])('refuses %j with a clear message', async (argv, message) => {
    const run = fresh({ WATCHKEEPER_EMBEDDINGS: 'off' });
    const r = await run(argv);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });

  it('says reindex has nothing to do with embeddings off (exit 2)', async () => {
    const run = fresh({ WATCHKEEPER_EMBEDDINGS: 'off' });
    const r = await run(['reindex']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/embeddings are off/);
  });

  it('--explain lists the candidates that were cut, each with its reason', async () => {
    const run = fresh({ WATCHKEEPER_EMBEDDINGS: 'off' });
    await add(run, 'jellyfin', 'the library scan makes the web client slow');
    await add(run, 'jellyfin', 'the library scan runs every night at three');
    // Shares one word of the four asked: not evidence enough on its own.
    await add(run, 'caddy', 'a certificate renewal at night restarts the proxy');
    const query = 'when does the library scan run at night';

    const plain = JSON.parse(
      (await run(['memories', 'search', query, '--limit', '1', '--json'])).stdout,
    );
    expect(plain.cut).toBeUndefined();
    expect(plain.results).toHaveLength(1);

    const explained = await run([
      'memories',
      'search',
      query,
      '--limit',
      '1',
      '--explain',
      '--json',
    ]);
    expect(explained.code).toBe(0);
    const answer = JSON.parse(explained.stdout);
    expect(answer.results).toEqual(plain.results);
    const cut = answer.cut as { observation: string; reason: string; detail: string }[];
    expect(cut).toContainEqual(
      expect.objectContaining({
        reason: 'outranked',
        detail: 'ranked 2, past the limit of 1',
      }),
    );
    expect(cut).toContainEqual(
      expect.objectContaining({
        observation: 'a certificate renewal at night restarts the proxy',
        reason: 'no evidence',
        detail: expect.stringMatching(
          /^no vector to compare; its words cover \d+% of the query's weight \(50% needed\), lexical rank \d+, not leading$/,
        ),
      }),
    );

    const table = await run(['memories', 'search', query, '--limit', '1', '--explain']);
    expect(table.stdout).toContain('Cut (did not come back):');
    expect(table.stdout).toMatch(/outranked +ranked 2, past the limit of 1/);
  });
});
