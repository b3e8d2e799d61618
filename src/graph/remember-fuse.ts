/**
 * Reciprocal rank fusion of /remember's lists: each idea's fused score and, for the answer's
 * "why", its rank in every list that found it.
 */
import type { ListWeights } from './remember-weights.js';
import { K } from './remember-weights.js';
import type { Why } from './remember-types.js';

export interface Lists {
  lexical: { id: number }[];
  semantic: { id: number; cosine: number }[];
  span: { id: number }[];
  entity: { id: number }[];
  hyde: { id: number }[];
  filter: { id: number }[];
}

export function fuseLists(lists: Lists, weights: ListWeights): Map<number, Why> {
  const why = new Map<number, Why>();
  const get = (id: number): Why => {
    let w = why.get(id);
    if (!w) {
      w = {
        lexicalRank: null,
        semanticRank: null,
        cosine: null,
        spanRank: null,
        entityRank: null,
        hydeRank: null,
        fused: 0,
        confidenceWeight: 1,
        recencyWeight: 1,
        intentWeight: 1,
      };
      why.set(id, w);
    }
    return w;
  };
  const fuse = (list: { id: number }[], weight: number, set: (w: Why, rank: number) => void) =>
    list.forEach((h, i) => {
      const w = get(h.id);
      set(w, i + 1);
      w.fused += weight / (K + i + 1);
    });
  fuse(lists.lexical, weights.lexical, (w, r) => (w.lexicalRank ??= r));
  fuse(lists.semantic, weights.semantic, (w, r) => (w.semanticRank ??= r));
  lists.semantic.forEach((h) => (get(h.id).cosine = h.cosine));
  fuse(lists.span, weights.span, (w, r) => (w.spanRank ??= r));
  fuse(lists.entity, weights.entity, (w, r) => (w.entityRank ??= r));
  fuse(lists.hyde, weights.hyde, (w, r) => (w.hydeRank ??= r));
  fuse(lists.filter, weights.filter, () => undefined);
  return why;
}
