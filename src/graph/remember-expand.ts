/**
 * What /remember adds around its matches: the ideas the top matches supersede, build on, answer
 * or contradict (graph expansion), and the turns said right after the best matches (replies).
 */
import type { GraphStores, RelationType } from '../db/graph/graph.js';
import type { RankedIdea, Via } from './remember-types.js';
import { EXPAND_FROM, FOLLOWED, REPLIES_OF, REPLY_SHARE } from './remember-weights.js';

type Rows = GraphStores['rows'];

/** Graph expansion: what superseded, built on, answered or contradicts the top matches. */
export async function expandRanked(rows: Rows, ranked: RankedIdea[]): Promise<RankedIdea[]> {
  const have = new Map(ranked.map((r) => [r.idea.id, r]));
  const top = ranked.slice(0, EXPAND_FROM);
  const rels = (await rows.relationsOf(top.map((r) => r.idea.id))).filter((r) =>
    FOLLOWED.includes(r.type),
  );
  const wanted = new Map<
    number,
    { from: RankedIdea; relation: RelationType; direction: Via['direction'] }
  >();
  for (const r of rels) {
    for (const [mine, other, direction] of [
      [r.fromId, r.toId, 'in'],
      [r.toId, r.fromId, 'out'],
    ] as const) {
      const from = have.get(mine);
      if (!from || have.has(other) || wanted.has(other) || !top.includes(from)) continue;
      wanted.set(other, { from, relation: r.type, direction });
    }
  }
  const added = (await rows.ideasAwaited([...wanted.keys()])).map((idea) => {
    const w = wanted.get(idea.id)!;
    return {
      idea,
      score: w.from.score * 0.9,
      why: w.from.why,
      via: { from: w.from.idea.id, relation: w.relation, direction: w.direction },
    };
  });
  return [...ranked, ...added].sort((x, y) => y.score - x.score || y.idea.id - x.idea.id);
}

/** The turns said right after the best matches, in the same topic. */
export async function withReplies(rows: Rows, ranked: RankedIdea[]): Promise<RankedIdea[]> {
  const byId = new Map(ranked.map((r) => [r.idea.id, r]));
  // The matches whose reply is brought in, then their replies read side by side.
  const turns = new Set<string>();
  const from: RankedIdea[] = [];
  for (const r of ranked) {
    if (r.via) continue;
    const turn = `${r.idea.session}\u0000${r.idea.sourceLine}`;
    if (turns.has(turn)) continue;
    if (turns.size >= REPLIES_OF) break;
    turns.add(turn);
    from.push(r);
  }
  const replies = await Promise.all(
    from.map((r) => rows.turnAfter(r.idea.session, r.idea.sourceLine, r.idea.spanId)),
  );
  for (const [k, r] of from.entries()) {
    for (const idea of replies[k]!) {
      const score = r.score * REPLY_SHARE;
      const known = byId.get(idea.id);
      if (known && known.score >= score) continue;
      byId.set(idea.id, {
        idea,
        score,
        why: known?.why ?? r.why,
        via: known ? known.via : { from: r.idea.id, relation: 'reply', direction: 'out' },
      });
    }
  }
  return [...byId.values()].sort((x, y) => y.score - x.score || y.idea.id - x.idea.id);
}
