/** A small seeded PRNG (mulberry32) so generated bench data is the same on every run. */

export function createRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min, max) => min + Math.floor(next() * (max - min + 1));
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const HEX = '0123456789abcdef';
  const chars = (alphabet, n) => {
    let s = '';
    for (let i = 0; i < n; i += 1) s += alphabet[Math.floor(next() * alphabet.length)];
    return s;
  };
  return {
    next,
    int,
    /** True with probability p. */
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    /** Log-uniform between min and max: many small values, a few large ones. */
    logUniform: (min, max) => Math.round(Math.exp(Math.log(min) + next() * Math.log(max / min))),
    hex: (n) => chars(HEX, n),
    base62: (n) => chars(BASE62, n),
    uuid: () =>
      `${chars(HEX, 8)}-${chars(HEX, 4)}-4${chars(HEX, 3)}-${HEX[8 + int(0, 3)]}${chars(HEX, 3)}-${chars(HEX, 12)}`,
  };
}
