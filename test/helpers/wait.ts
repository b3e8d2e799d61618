/**
 * Waiting in tests for what another process or thread does: a poll with a deadline that only
 * catches a hang (generous, so that a busy machine is only slower), failing with what was awaited.
 */

const POLL_MS = 50;

/** Thrown inside a waitFor poll: ends the wait at once (the thing waited for cannot happen). */
export class WaitAborted extends Error {}

/**
 * Polls `fn` until it returns something truthy, or fails naming `what` after `ms` (with the last
 * error a poll threw); a WaitAborted ends it at once.
 */
export async function waitFor<T>(
  what: string,
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 90_000,
): Promise<T> {
  const end = Date.now() + ms;
  let lastError: unknown = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      if (err instanceof WaitAborted) throw err;
      lastError = err;
    }
    if (Date.now() > end) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${ms} ms waiting for ${what}${detail}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
