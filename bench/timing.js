/** Wall-clock timing helpers. Numbers are reported, never asserted. */
import { performance } from 'node:perf_hooks';

/** Full GC when node runs with --expose-gc (npm run bench does); a no-op otherwise. */
export function collectGarbage() {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
}

/** Runs `fn` once after a GC; returns its value and the elapsed milliseconds. */
export async function timed(fn) {
  collectGarbage();
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Synchronous variant, so no promise machinery sits inside the timed region. */
export function timedSync(fn) {
  collectGarbage();
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
}
