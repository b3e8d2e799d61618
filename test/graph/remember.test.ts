/**
 * /remember: query analysis (temporal qualifiers, intent filters, entities), the fused search,
 * graph expansion, evolution chains in order and the token budget, offline and with the local
 * embedding model.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { analyseQuery } from '../../src/graph/index.js';
import { estimateTokens } from '../../src/memory/index.js';
import { type GraphApp, graphApp, MAIN, SUBAGENT } from '../helpers/graph.js';
import { localEmbedder } from '../helpers/knowledge.js';

let app: GraphApp | undefined;
afterEach(() => {
  app?.close();
  app = undefined;
});

// Wednesday 2026-03-11 12:00 UTC.
const NOW = Date.UTC(2026, 2, 11, 12);
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

describe('query analysis', () => {
  it('reads temporal qualifiers as UTC day ranges', () => {
    expect(analyseQuery('what did we say yesterday about restic', NOW)).toMatchObject({
      since: day('2026-03-10'),
      until: day('2026-03-11'),
      temporal: 'yesterday',
      recency: true,
      search: 'restic',
    });
    // "last week": from the Monday of the week before this one.
    expect(analyseQuery('decisions about the backup window last week', NOW)).toMatchObject({
      since: day('2026-03-02'),
      until: null,
      intents: ['decision'],
      search: 'backup window',
    });
    expect(analyseQuery('caddy in March', NOW)).toMatchObject({
      since: day('2026-03-01'),
      until: day('2026-04-01'),
    });
    // A March still to come means last year's.
    expect(analyseQuery('caddy in March', Date.UTC(2026, 1, 1))).toMatchObject({
      since: day('2025-03-01'),
    });
    expect(analyseQuery('what did we decide recently', NOW)).toMatchObject({
      since: null,
      recency: true,
    });
    expect(analyseQuery('restic in the last 3 days', NOW)).toMatchObject({
      since: NOW - 3 * 86_400_000,
    });
  });

  it('reads a date named in full as that UTC day, and searches without it', () => {
    expect(
      analyseQuery('What painting did Melanie show to Caroline on October 13, 2023?', NOW),
    ).toMatchObject({
      since: day('2023-10-13'),
      until: day('2023-10-14'),
      temporal: 'on october 13, 2023',
      search: 'painting melanie show to caroline ?',
    });
    expect(analyseQuery('what did gina find on 1 February, 2023', NOW)).toMatchObject({
      since: day('2023-02-01'),
      until: day('2023-02-02'),
    });
    // No year: the last such day that has come.
    expect(analyseQuery('restic on March 3', NOW).since).toBe(day('2026-03-03'));
    expect(analyseQuery('restic on the 20th of March', NOW).since).toBe(day('2025-03-20'));
    // A month alone is still the month.
    expect(analyseQuery('caddy in March 2025', NOW)).toMatchObject({
      since: day('2025-03-01'),
      until: day('2025-04-01'),
    });
  });

  it('searches without question words, pronouns and possessive endings', () => {
    expect(analyseQuery("How does Melanie's family support her?", NOW).search).toBe(
      'does melanie family support ?',
    );
  });

  it('filters by intent for a request, and only prefers it inside a question', () => {
    expect(analyseQuery('open questions', NOW)).toMatchObject({
      intents: ['question'],
      openOnly: true,
      search: '',
    });
    expect(analyseQuery('problems with caddy', NOW)).toMatchObject({
      intents: ['problem'],
      search: 'caddy',
    });
    expect(analyseQuery('what issues did we have with caddy?', NOW)).toMatchObject({
      intents: [],
      preferIntents: ['problem'],
    });
  });

  it('recognises the entities a query names, spellings folded', () => {
    expect(analyseQuery('what do we keep in postgres', NOW).entities).toContainEqual(
      expect.objectContaining({ name: 'PostgreSQL', type: 'technology' }),
    );
  });
});

describe('remember over the hand-made transcript, offline', () => {
  const indexed = async () => {
    const a = graphApp();
    await a.graph.index(MAIN);
    await a.graph.index(SUBAGENT);
    a.clock.set(NOW);
    return a;
  };

  it('answers "decisions about the backup window" with the evolution chain in order', async () => {
    app = await indexed();
    const answer = await app.graph.remember('decisions about the backup window');
    expect(answer.mode).toBe('lexical');
    const ideas = answer.groups.flatMap((g) => g.ideas);
    const latest = ideas.find((a) => a.idea.content.includes('from 02:00 to 01:00'))!;
    expect(latest.chain!.map((l) => l.content.slice(0, 30))).toEqual([
      'We decided to run the nightly ',
      'We changed the nightly restic ',
    ]);
    expect(answer.text).toMatch(
      /evolution: 2026-03-03 #\d+ "We decided to run the nightly restic backup at 02:00.*-> superseded 2026-03-06 by #\d+ "We changed/,
    );
    // The superseded decision is in the chain, not repeated on its own.
    expect(ideas.filter((a) => a.idea.content.startsWith('We decided to run'))).toEqual([]);
    expect(answer.tokens).toBeLessThanOrEqual(1000);
  });

  it('lists open questions only', async () => {
    app = await indexed();
    const answer = await app.graph.remember('open questions');
    const ideas = answer.groups.flatMap((g) => g.ideas.map((a) => a.idea));
    expect(ideas.map((i) => i.content)).toEqual([
      'Should we switch to the DNS-01 challenge later, so that port 80 can stay closed?',
    ]);
  });

  it('follows relations from the top matches: a problem brings its solution', async () => {
    app = await indexed();
    const answer = await app.graph.remember('problems with caddy renewing the certificate');
    const ideas = answer.groups.flatMap((g) => g.ideas);
    expect(ideas.map((a) => a.idea.intent)).toContain('problem');
    const fix = ideas.find((a) => a.idea.content.startsWith('Fixed by opening port 80'));
    expect(fix?.via).toMatchObject({ relation: 'answers', direction: 'out' });
    expect(answer.text).toContain('answers #');
  });

  it('finds the ideas of an entity by any of its spellings', async () => {
    app = await indexed();
    const answer = await app.graph.remember('postgresql dumps');
    const sessions = new Set(answer.groups.flatMap((g) => g.ideas.map((a) => a.idea.session)));
    expect(sessions.size).toBe(2);
  });

  it('keeps a temporal filter, and says so when nothing was said in that period', async () => {
    app = await indexed();
    const inMarch = await app.graph.remember('restic backup in March');
    expect(inMarch.note).toBeNull();
    expect(inMarch.groups.length).toBeGreaterThan(0);
    const yesterday = await app.graph.remember('restic backup yesterday');
    expect(yesterday.note).toBe(
      'Nothing was said yesterday; these are the closest matches from any time.',
    );
    expect(yesterday.text).toContain(yesterday.note!);
  });

  it('never exceeds the budget, and fills it with what fits', async () => {
    app = await indexed();
    let previous = 0;
    for (const budget of [60, 120, 250, 1000]) {
      const answer = await app.graph.remember('restic backup caddy postgres', { budget });
      expect(estimateTokens(answer.text)).toBeLessThanOrEqual(budget);
      expect(answer.tokens).toBe(estimateTokens(answer.text));
      const count = answer.groups.reduce((n, g) => n + g.ideas.length, 0);
      expect(count).toBeGreaterThanOrEqual(previous);
      previous = count;
    }
    expect(previous).toBeGreaterThan(3);
  });

  it('says when nothing matches', async () => {
    app = await indexed();
    const answer = await app.graph.remember('kubernetes ingress annotations');
    expect(answer.groups).toEqual([]);
    expect(answer.text).toContain('Nothing in the indexed conversations matches.');
  });
});

/** A Claude Code transcript of these turns, a minute apart, an hour before NOW. */
function transcriptOf(dir: string, turns: [string, string][]): string {
  const session = 'c0ffee00-1111-4222-8333-444455556666';
  const file = join(dir, `${session}.jsonl`);
  writeFileSync(
    file,
    `${turns
      .map(([role, text], i) =>
        JSON.stringify({
          type: role,
          sessionId: session,
          cwd: '/home/ops/homelab',
          timestamp: new Date(NOW - 3_600_000 + i * 60_000).toISOString(),
          message:
            role === 'user' ? { role, content: text } : { role, content: [{ type: 'text', text }] },
        }),
      )
      .join('\n')}\n`,
  );
  return file;
}

describe('remember reads a match with its turn, and brings the reply to it', () => {
  it('keeps a sentence whose turn covers the query though the sentence alone does not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-graph-turn-'));
    try {
      // One turn: no neighbour brings the second sentence in.
      const file = transcriptOf(dir, [
        [
          'user',
          'The restic repository lives on the NAS share. Its password rotates every month, right?',
        ],
      ]);
      app = graphApp();
      await app.graph.index(file);
      const answer = await app.graph.remember('restic repository password rotation');
      expect(answer.ranked.map((r) => r.idea.content)).toContain(
        'Its password rotates every month, right?',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('adds the reply to a match, though it shares no word with the query', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-graph-reply-'));
    try {
      const file = transcriptOf(dir, [
        ['user', 'We decided to put the Grafana dashboard behind the reverse proxy.'],
        ['assistant', 'Then only port 3000 on the loopback interface stays published.'],
        ['user', 'Please also rotate the restic repository password this month.'],
        ['assistant', 'Rotating the restic repository password needs the old key file first.'],
      ]);
      app = graphApp();
      await app.graph.index(file);
      const answer = await app.graph.remember('grafana dashboard proxy');
      const reply = answer.ranked.find((r) => r.idea.content.startsWith('Then only port 3000'));
      expect(reply?.via).toMatchObject({ relation: 'reply', direction: 'out' });
      expect(answer.text).toMatch(/Then only port 3000.*replies to #\d+/);
      // A query for some intent wants those ideas, not the turns around them.
      const decisions = await app.graph.remember('decisions about the grafana dashboard');
      expect(decisions.ranked.map((r) => r.idea.intent)).toEqual(['decision']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('remember with the local embedding model', () => {
  it('finds by meaning what shares no word with the query', async () => {
    app = graphApp({ embedder: localEmbedder() });
    await app.graph.index(MAIN);
    // No word in common with what was said.
    const answer = await app.graph.remember('at what hour does the data copy begin');
    expect(answer.mode).toBe('hybrid');
    expect(answer.ranked[0]!.idea.content).toMatch(/nightly restic backup from 02:00 to 01:00/);
    expect(answer.ranked[0]!.why).toMatchObject({ lexicalRank: null, semanticRank: 1 });
    const cert = await app.graph.remember('https cert renewal broken');
    // All from the reverse-proxy topic: the problem, its cause and its fix.
    for (const r of cert.ranked.slice(0, 3))
      expect(r.idea.content).toMatch(/Caddy|certificate|port 80/);
  });
});
