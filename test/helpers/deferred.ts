/**
 * What a test opened, undone after it in reverse order (connections closed before their database
 * is dropped), even when the test failed.
 */
import { afterEach } from 'vitest';

/** Registers the afterEach; returns what queues an undo for the current test. */
export function undoAfterEach(): (undo: () => unknown) => void {
  const queued: (() => unknown)[] = [];
  afterEach(async () => {
    for (const undo of queued.splice(0).reverse()) await undo();
  });
  return (undo) => void queued.push(undo);
}
