/** Raw numbers from a backend -> unit vectors, or a clear error when the answer is unusable. */
import { AppError } from '../errors.js';
import { normalise } from '../memory/vectors.js';

/**
 * Checks each vector (numbers, finite, not all zero, all of one length, equal to `expected` when
 * known) and scales it to unit length. `who` names the backend in the error.
 */
export function toUnitVectors(
  raw: readonly ArrayLike<unknown>[],
  who: string,
  expected: number | null,
): Float32Array[] {
  const dimension = expected ?? raw[0]?.length ?? 0;
  return raw.map((v, i) => {
    if (v.length === 0) throw new AppError('embedding_failed', `${who}: vector ${i} is empty`);
    if (v.length !== dimension) {
      throw new AppError(
        'embedding_failed',
        `${who}: vector ${i} has ${v.length} dimensions, expected ${dimension}` +
          (expected !== null && v.length !== expected
            ? ' (the model behind this name changed: its stored vectors need redoing)'
            : ''),
        { data: { dimension: v.length, expected: dimension } },
      );
    }
    let sum = 0;
    for (let j = 0; j < v.length; j += 1) {
      const x = v[j];
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new AppError(
          'embedding_failed',
          `${who}: vector ${i} holds ${JSON.stringify(x) ?? String(x)} at ${j}, not a finite number`,
        );
      }
      sum += x * x;
    }
    if (sum === 0) throw new AppError('embedding_failed', `${who}: vector ${i} is all zeros`);
    return normalise(v as ArrayLike<number>);
  });
}
