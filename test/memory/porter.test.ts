/**
 * The search's stemmer against FTS5's own `porter` tokenizer: every word of the project's
 * README and retrieval set, stemmed by both, must come out the same (fts5vocab shows FTS5's).
 */
import { readFileSync } from 'node:fs';

import Database from 'better-sqlite3';
import { expect, it } from 'vitest';

import { porterStem } from '../../src/memory/porter.js';

const SAMPLE = [
  'shares share files file restarted restarting caresses ponies ties caress cats feed agreed',
  'plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed',
  'failing filing happy sky relational conditional rational valenci hesitanci digitizer',
  'conformabli radicalli differentli vileli analogousli vietnamization predication operator',
  'feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate',
  'formative formalize electriciti electrical hopeful goodness revival allowance inference',
  'airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption',
  'homologou communism activate angulariti homologous effective bowdlerize probate rate cease',
  'controll roll generalizations oscillators yelling syzygy abyss by say jellyfin ssds',
].join(' ');

const vocabulary = (): string[] => {
  const text = [
    SAMPLE,
    readFileSync(new URL('../../README.md', import.meta.url), 'utf8'),
    readFileSync(new URL('../../bench/data/ops-retrieval.json', import.meta.url), 'utf8'),
  ].join(' ');
  return [...new Set(text.toLowerCase().match(/[a-z]+/g) ?? [])];
};

it('stems every word as FTS5 porter unicode61 does', () => {
  const words = vocabulary();
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE t USING fts5(w, tokenize = 'porter unicode61')");
  db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')");
  const insert = db.prepare('INSERT INTO t (w) VALUES (?)');
  const stemOf = db.prepare('SELECT term FROM v');
  const differ: string[] = [];
  for (const word of words) {
    db.exec('DELETE FROM t');
    insert.run(word);
    const fts5 = (stemOf.get() as { term: string }).term;
    if (fts5 !== porterStem(word)) differ.push(`${word}: fts5 ${fts5}, ours ${porterStem(word)}`);
  }
  db.close();
  expect(words.length).toBeGreaterThan(1000);
  expect(differ).toEqual([]);
});
