/** Ranking figures (recall@k, reciprocal rank) summed per split and group, then averaged. */

/** The share of `gold` found within the first k of `ranked`. */
export function recallAt(ranked, gold, k) {
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

export function reciprocalRank(ranked, gold) {
  const targets = new Set(gold);
  const first = ranked.findIndex((id) => targets.has(id));
  return first < 0 ? 0 : 1 / (first + 1);
}

/** Sums keyed by path, split and group: add(path, split, group, {metric: value}); mean(...). */
export function tally() {
  const sums = new Map();
  return {
    add(path, split, group, values) {
      const key = `${path}|${split}|${group}`;
      const s = sums.get(key) ?? { n: 0 };
      s.n += 1;
      for (const [m, v] of Object.entries(values)) s[m] = (s[m] ?? 0) + v;
      sums.set(key, s);
    },
    mean(path, split, group, metric) {
      const s = sums.get(`${path}|${split}|${group}`);
      return s ? (s[metric] ?? 0) / s.n : null;
    },
    count(path, split, group) {
      return sums.get(`${path}|${split}|${group}`)?.n ?? 0;
    },
  };
}
