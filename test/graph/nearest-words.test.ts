/**
 * The nearest ideas by words, ranked in memory while indexing (src/db/graph-words.ts), are
 * exactly what FTS5 ranks for the same query: the same ideas in the same order with the same
 * bm25, on a corpus with common and rare words, repeated texts (ties) and the words around
 * ideas, and still after everything the copy in memory has to follow: ideas added and given
 * context after it was read, a transaction rolled back, ideas deleted or reworded, and another
 * connection writing to the same file.
 */
import { join } from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createGraphStores, type GraphStores } from '../../src/db/graph/graph.js';
import { ftsQuery } from '../../src/knowledge/index.js';
import { queryWords } from '../../src/memory/index.js';
import { type TestApp, testApp } from '../helpers/db.js';

const WORDS = (
  'postgres backup restic nightly window caddy certificate renewal jellyfin transcode ' +
  'disk full volume snapshot restart container docker compose health check timeout slow ' +
  'memory leak swap kernel upgrade reboot dns resolver cache tls handshake failed retry ' +
  'cron schedule moved earlier later grafana alert latency spike network bridge firewall ' +
  'running runs ran restarted restarting backups'
).split(' ');

/** A small deterministic generator (the corpus is the same on every run). */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(rand: () => number, n: number): string {
  // Skewed toward the first words, so some are common and some rare.
  const pick = () => WORDS[Math.floor(rand() ** 2 * WORDS.length)]!;
  return Array.from({ length: n }, pick).join(' ');
}

let app: TestApp;
let graph: GraphStores;
let rand: () => number;
let line = 0;

beforeEach(() => {
  app = testApp();
  graph = createGraphStores(app.stores.db);
  rand = prng(42);
  line = 0;
});
afterEach(() => app.close());

function addIdeas(n: number, file = 'a.jsonl'): number[] {
  const ids: number[] = [];
  for (let k = 0; k < n; k += 1) {
    line += 1;
    // Every ninth idea repeats an earlier text: equal scores, ordered by id.
    const content = k % 9 === 8 ? 'restic backup window moved' : sentence(rand, 3 + (k % 7));
    ids.push(
      graph.rows.insertIdea({
        spanId: null,
        session: 's1',
        content,
        intent: 'conclusion',
        confidence: 0.8,
        answered: null,
        role: 'assistant',
        sourceFile: file,
        sourceLine: line,
        createdAt: 1_000 + line,
      }),
    );
  }
  return ids;
}

/** The words around ideas, as indexing writes them. */
function addContext(ids: number[]): void {
  graph.search.setContext(ids, {
    turn: sentence(rand, 20),
    near: sentence(rand, 8),
    far: '',
  });
  graph.search.addContext(ids.slice(0, 1), 'far', sentence(rand, 6));
}

/** Both rankings for many queries; returns how many hits were compared. */
function compareRankings(queries = 60): number {
  let compared = 0;
  for (let q = 0; q < queries; q += 1) {
    const text = q % 10 === 0 ? 'restic backup window' : sentence(rand, 2 + (q % 5));
    const fts = graph.search.lexicalIdeas(ftsQuery(text), {}, 11);
    const mem = graph.search.nearestByWords(queryWords(text), 11);
    expect(mem.map((h) => h.id)).toEqual(fts.map((h) => h.id));
    mem.forEach((h, k) => expect(h.bm25).toBeCloseTo(fts[k]!.bm25, 9));
    compared += fts.length;
  }
  return compared;
}

describe('the nearest ideas by words', () => {
  it('are the ideas FTS5 ranks first, in its order, with its bm25', () => {
    for (let k = 0; k < 30; k += 1) addContext(addIdeas(10));
    expect(compareRankings(120)).toBeGreaterThan(1000);
  });

  it('stay equal as ideas and their words are added after the first query', () => {
    addContext(addIdeas(40));
    compareRankings(5);
    for (let round = 0; round < 10; round += 1) {
      addContext(addIdeas(7));
      compareRankings(10);
    }
  });

  it('stay equal when asked before the words around new ideas reach the table', () => {
    addContext(addIdeas(40));
    compareRankings(5);
    for (let round = 0; round < 10; round += 1) {
      addContext(addIdeas(7));
      // Asked first, while the words around the new ideas wait to be written.
      const texts = Array.from({ length: 10 }, (_, q) => sentence(rand, 2 + (q % 5)));
      const mem = texts.map((text) => graph.search.nearestByWords(queryWords(text), 11));
      texts.forEach((text, q) => {
        const fts = graph.search.lexicalIdeas(ftsQuery(text), {}, 11);
        expect(mem[q]!.map((h) => h.id)).toEqual(fts.map((h) => h.id));
        mem[q]!.forEach((h, k) => expect(h.bm25).toBeCloseTo(fts[k]!.bm25, 9));
      });
    }
  });

  it('stay equal after a transaction that wrote ideas is rolled back', () => {
    addContext(addIdeas(60));
    compareRankings(5);
    const write = app.stores.db.transaction(() => {
      addContext(addIdeas(30));
      compareRankings(5);
      throw new Error('rolled back');
    });
    expect(() => write()).toThrow('rolled back');
    compareRankings(20);
  });

  it('stay equal after ideas are deleted or reworded', () => {
    addContext(addIdeas(50, 'a.jsonl'));
    addContext(addIdeas(50, 'b.jsonl'));
    compareRankings(5);
    graph.rows.deleteFile('a.jsonl');
    compareRankings(20);
    app.stores.db.prepare("UPDATE ideas SET content = 'caddy certificate renewal failed'").run();
    compareRankings(20);
  });

  it('stay equal after another connection writes to the same database', () => {
    addContext(addIdeas(50));
    compareRankings(5);
    const other = new Database(join(app.dataDir, 'watchkeeper.db'));
    try {
      const otherGraph = createGraphStores(other);
      otherGraph.rows.insertIdea({
        spanId: null,
        session: 's2',
        content: 'restic backup window restic backup window',
        intent: 'decision',
        confidence: 0.9,
        answered: null,
        role: 'user',
        sourceFile: 'c.jsonl',
        sourceLine: 1,
        createdAt: 5_000,
      });
    } finally {
      other.close();
    }
    compareRankings(20);
  });
});
