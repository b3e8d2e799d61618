/**
 * Memory scopes: the search can be narrowed to scopes, and what the ops sessions get (their
 * memory block, the in-session hook) holds conversation memories only of scopes the operator
 * shared with ops.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { testApp, type TestApp } from '../helpers/db.js';

let app: TestApp;
afterEach(() => app.close());

async function seed() {
  app = testApp();
  const observe = (observation: string, scope: string, importance: 'normal' | 'core' = 'normal') =>
    app.knowledge.memory.observe({
      service: null,
      category: 'behavior',
      observation,
      sessionId: null,
      tier: 1,
      scope,
      importance,
      ...(scope === 'ops' ? {} : { source: 'conversation' as const }),
    });
  await observe('The backup job restarts caddy every night', 'ops');
  await observe('The backup disk is the blue Samsung drive', 'conversation:c1');
  await observe('Backups must finish before 6am, the user insists', 'conversation:c1', 'core');
  await observe('The backup password lives in the team vault', 'team');
}

describe('memory scopes', () => {
  it('narrows a search to the given scopes', async () => {
    await seed();
    const scopesOf = async (scopes?: string[]) =>
      (await app.knowledge.search.search('backup', scopes ? { scopes } : {})).results
        .map((r) => r.memory.scope)
        .sort();
    expect(await scopesOf()).toEqual(['conversation:c1', 'conversation:c1', 'ops', 'team']);
    expect(await scopesOf(['team'])).toEqual(['team']);
    expect(await scopesOf(['ops', 'team'])).toEqual(['ops', 'team']);
    expect(await scopesOf([])).toEqual([]);
  });

  it('gives the ops sessions conversation memories only of the scopes shared with ops', async () => {
    await seed();
    const block = async () =>
      (await app.knowledge.injection.build({ trigger: 'backup' }, 2000)).text;
    let text = await block();
    expect(text).toContain('restarts caddy');
    // Not even a core (pinned) conversation memory reaches a session unshared.
    expect(text).not.toMatch(/Samsung|6am|vault/);
    await app.stores.scopes.setShared('conversation:c1', true, app.clock.now());
    text = await block();
    expect(text).toMatch(/Samsung/);
    expect(text).toMatch(/6am/);
    expect(text).not.toMatch(/vault/);
    // The in-session hook too.
    const surface = () =>
      app.knowledge.tools.surface(null, {
        toolName: 'Bash',
        toolInput: { command: 'cat /etc/backup/password' },
        toolResponse: { stdout: 'backup password is in the vault' },
      });
    expect((await surface()).text).not.toMatch(/vault/);
    await app.stores.scopes.setShared('team', true, app.clock.now());
    expect((await surface()).text).toMatch(/team vault/);
  });
});

describe('memory scopes among many memories', () => {
  it('finds the few memories of a narrow scope even when hundreds of others match the words better', async () => {
    app = testApp();
    const at = app.clock.now();
    for (let i = 0; i < 450; i += 1) {
      app.stores.memories.create({
        service: null,
        category: 'behavior',
        observation: `backup backup job ${i}`,
        confidence: 0.7,
        sessionId: null,
        tier: 1,
        at,
        nextDecayAt: at + 1e12,
      });
    }
    await app.knowledge.memory.observe({
      service: null,
      category: 'behavior',
      observation: 'The user keeps the offsite backup drive at their parents house in the attic',
      sessionId: null,
      tier: 1,
      source: 'conversation',
      scope: 'conversation:c1',
    });
    for (const status of ['active', 'all'] as const) {
      const answer = await app.knowledge.search.search('backup', {
        scopes: ['conversation:c1'],
        status,
      });
      expect(answer.results.map((r) => r.memory.scope)).toEqual(['conversation:c1']);
    }
  });
});
