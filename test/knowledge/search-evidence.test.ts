/**
 * What counts as evidence: what FTS5 matches, in FTS5's own word forms, with question words and
 * possessives asking rather than being asked about; and a memory close in meaning alone.
 */
import { afterEach, describe, expect, it } from 'vitest';

import type { ObserveInput } from '../../src/knowledge/memory/create.js';
import { type KnowledgeApp, knowledgeApp, localEmbedder } from '../helpers/knowledge.js';

let app: KnowledgeApp;
afterEach(() => app?.close());

const observe = (a: KnowledgeApp, observation: string, more: Partial<ObserveInput> = {}) =>
  a.knowledge.memory.observe({
    service: null,
    category: 'behavior',
    observation,
    sessionId: null,
    tier: 1,
    ...more,
  });

const found = async (a: KnowledgeApp, query: string) =>
  (await a.knowledge.search.search(query)).results.map((r) => r.memory.observation);

describe('search with embeddings off', () => {
  it('returns what FTS5 ranks first: "shares" finds the memory about a share', async () => {
    app = knowledgeApp(null);
    await observe(app, 'the media share is exported over NFS to the living room box');
    await observe(app, 'grafana dashboards are provisioned from the git repository');
    const lexical = app.stores.search.lexical('"which" OR "shares" OR "exported"', {}, 10);
    const first = app.stores.memories.get(lexical[0]!.id)!.observation;
    expect(first).toBe('the media share is exported over NFS to the living room box');
    expect(await found(app, 'which shares are exported')).toEqual([first]);
  });

  it("finds a memory for a question, its question words and possessive's asking", async () => {
    app = knowledgeApp(null);
    await observe(app, 'after a restart jellyfin wants its media rescanned');
    await observe(app, 'the photo library needs 2 GB of memory');
    expect(await found(app, "what does jellyfin's library need after a restart")).toContain(
      'after a restart jellyfin wants its media rescanned',
    );
  });

  it('finds what a question asks about whatever date it names, which no memory holds', async () => {
    app = knowledgeApp(null);
    await observe(app, 'Tim: I am learning how to play the violin now');
    await observe(app, 'the backup job runs every night at two');
    await observe(app, 'the photo library needs 2 GB of memory');
    for (const when of ['in December 2023', 'on Sunday, 3 March 2024', '']) {
      expect(await found(app, `What instrument is Tim learning to play ${when}?`)).toEqual([
        'Tim: I am learning how to play the violin now',
      ]);
    }
    // A date alone is no question about anything here.
    expect(await found(app, 'what happened in December 2023')).toEqual([]);
  });

  it('ranks a service’s memories by what they say, not by how short they are', async () => {
    app = knowledgeApp(null);
    const long =
      'the zfs pool scrub starts every sunday night and takes about nine hours on the big ' +
      'array; the dashboards are slow while it runs, so nothing heavy is scheduled beside it, ' +
      'the backups wait for it to finish, and the replication to the offsite box is paused ' +
      'until the next morning when the array is idle again and the disks have cooled down';
    await observe(app, long, { service: 'nas' });
    await observe(app, 'pool tank is raidz2', { service: 'nas' });
    // Other services hold most memories, as in any store of more than one service.
    for (const service of [
      'immich',
      'jellyfin',
      'grafana',
      'caddy',
      'postgresql',
      'unifi',
      'pihole',
      'vault',
      'loki',
      'redis',
    ]) {
      await observe(app, `${service} restarts take about a minute on this host`, { service });
      await observe(app, `${service} logs rotate daily and are kept for a week`, { service });
    }
    // Searched within the service, as a session's block and the hook search: the memory holding
    // both words comes first, as it does searched across every service.
    for (const service of ['nas', undefined]) {
      const answer = await app.knowledge.search.search('when does the pool scrub run', {
        ...(service ? { service } : {}),
      });
      expect(answer.results.map((r) => r.memory.observation)[0], String(service)).toBe(long);
    }
  });

  it('still surfaces nothing for a question about what no memory mentions', async () => {
    app = knowledgeApp(null);
    await observe(app, 'the photo library needs 2 GB of memory');
    expect(await found(app, 'what did Caroline paint for her memory book')).toEqual([]);
  });
});

describe("a memory's context", () => {
  /** Lines of a conversation, each a memory of it (as the extractor or an import writes them). */
  const said = async (a: KnowledgeApp, service: string, ...lines: string[]) => {
    const ids: number[] = [];
    for (const line of lines)
      ids.push((await observe(a, line, { service, source: 'conversation' })).memory.id);
    return ids;
  };
  /** A conversation where the answer holds none of the question's words. */
  const PAINTING = [
    'Mel: what did you paint last weekend?',
    'Caroline: a sunset over the lake, in oils',
    'Mel: lovely, I went hiking with the kids',
  ];
  const matching = (a: KnowledgeApp, words: string) =>
    a.stores.search.lexical(words, { status: 'all' }, 10).map((h) => h.id);

  it('finds a reply by the words said just before it, below what holds them itself', async () => {
    app = knowledgeApp(null);
    const [question, reply] = await said(app, 'chat', ...PAINTING);
    // Another service's memory between them in the store is neither's context.
    await said(app, 'nas', 'the pool scrub runs every sunday night');
    const [other] = await said(app, 'nas', 'smart reports no errors on any disk');
    expect(matching(app, '"paint"').slice(0, 2)).toEqual([question, reply]);
    expect(matching(app, '"scrub"')).not.toContain(reply);
    expect(matching(app, '"paint"')).not.toContain(other);
  });

  it('surfaces the reply to a question it was asked, though it holds none of its words', async () => {
    app = knowledgeApp(null);
    await said(app, 'chat', ...PAINTING);
    await said(app, 'nas', 'the pool scrub runs every sunday night');
    const answer = await found(app, 'what did Mel paint last weekend');
    expect(answer).toContain('Caroline: a sunset over the lake, in oils');
    expect(answer).not.toContain('the pool scrub runs every sunday night');
  });

  it('gives none to facts learned one at a time: markers, tool calls, the operator', async () => {
    app = knowledgeApp(null);
    await observe(app, 'Mel: what did you paint last weekend?', { service: 'chat' });
    const [reply] = [
      (await observe(app, 'Caroline: a sunset over the lake, in oils', { service: 'chat' })).memory
        .id,
    ];
    expect(matching(app, '"paint"')).not.toContain(reply);
    expect(await found(app, 'what did Mel paint last weekend')).not.toContain(
      'Caroline: a sunset over the lake, in oils',
    );
  });

  it('keeps the context in step when a memory beside it is edited or deleted', async () => {
    app = knowledgeApp(null);
    const [question, reply, after] = await said(app, 'chat', ...PAINTING);
    await app.knowledge.memory.edit(question!, { observation: 'Mel: how was the weekend?' });
    expect(matching(app, '"paint"')).toEqual([]);
    expect(matching(app, '"weekend"')).toContain(reply);
    await app.knowledge.memory.remove([reply!]);
    // The question and the turn after the reply are now side by side.
    expect(matching(app, '"hiking"')).toEqual([after, question]);
    expect(matching(app, '"sunset"')).toEqual([]);
  });

  it('does not count words said beside a memory as words it holds', async () => {
    app = knowledgeApp(null);
    await said(app, 'chat', 'Mel: what did you paint last weekend?', 'Caroline: a sunset');
    const { counts } = app.stores.search.wordCounts(['paint', 'sunset']);
    expect(Object.fromEntries(counts)).toEqual({ paint: 1, sunset: 1 });
  });
});

describe('hybrid search with the local model', () => {
  it('surfaces a memory found by meaning alone beside lexical matches of another', async () => {
    app = knowledgeApp(localEmbedder());
    // Of two services: neither is the other's context.
    await observe(app, 'smartctl reports reallocated sectors on the disk in bay 2', {
      confidence: 0.4,
      service: 'nas',
    });
    await observe(app, 'the usb drive is mounted at /mnt/backup every night', {
      service: 'backup',
    });
    const answer = await app.knowledge.search.search('is any hard drive failing');
    expect(answer.mode).toBe('hybrid');
    const smart = answer.results.find((r) => r.memory.observation.startsWith('smartctl'));
    expect(smart?.why.lexicalRank).toBeNull();
    expect(smart?.why.semanticRank).not.toBeNull();
  });
});
