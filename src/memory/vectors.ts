/**
 * Vector math for the search: dot products of unit vectors (= cosine), sign bits for a coarse
 * Hamming pass, and the (de)serialisation of a vector to the bytes stored in SQLite.
 */

/** Cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) s += a[i]! * b[i]!;
  return s;
}

/** Scales to unit length (a zero vector stays zero). */
export function normalise(v: ArrayLike<number>): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i += 1) s += v[i]! * v[i]!;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i += 1) out[i] = v[i]! * inv;
  return out;
}

/** Words (32 bits each) of a sign signature for a vector of this dimension. */
export function signatureWords(dimension: number): number {
  return Math.ceil(dimension / 32);
}

/** One bit per dimension: set when the component is positive. */
export function signBits(v: Float32Array, out: Uint32Array, offset = 0): void {
  const words = signatureWords(v.length);
  for (let w = 0; w < words; w += 1) {
    let bits = 0;
    const base = w * 32;
    const end = Math.min(32, v.length - base);
    for (let b = 0; b < end; b += 1) if (v[base + b]! > 0) bits |= 1 << b;
    out[offset + w] = bits >>> 0;
  }
}

/** Set bits of every 16-bit value: two look-ups count a word, faster than bit tricks in V8. */
export const POPCOUNT16 = (() => {
  const t = new Uint8Array(65536);
  for (let i = 1; i < 65536; i += 1) t[i] = (i & 1) + t[i >>> 1]!;
  return t;
})();

/** Number of set bits in a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * The vector in a blob: a view when its bytes are 4-aligned (the driver hands each row its own
 * buffer), else an aligned copy.
 */
export function fromBlob(blob: Uint8Array): Float32Array {
  if (blob.byteOffset % 4 === 0) {
    return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  }
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}
