/**
 * What makes a memory the same memory wherever it is exported, imported or deleted: its scope,
 * service, category, words and creation time, hashed. An import keys each record by it (so a
 * file imported twice changes nothing), and a deletion leaves a tombstone with it (so an export
 * taken before the deletion does not bring the memory back).
 */
import { createHash } from 'node:crypto';

export interface MemoryIdentity {
  scope: string;
  service: string | null;
  category: string;
  text: string;
  /** Epoch ms. */
  createdAt: number;
}

export function memoryKey(m: MemoryIdentity): string {
  return createHash('sha256')
    .update(JSON.stringify([m.scope, m.service, m.category, m.text, m.createdAt]))
    .digest('hex');
}

/**
 * Every wording a memory had, newest first: the one it has, then what its history recorded as
 * its own (its first words, an edit, a merge that set the survivor's words). A reinforcement's
 * or supersession's words are another memory's, and are left out.
 */
export function wordingsOf(
  current: string,
  history: readonly { action: string; observation: string | null }[],
): string[] {
  const own = history
    .filter((h) => ['created', 'edited', 'merged', 'imported'].includes(h.action))
    .map((h) => h.observation)
    .filter((o): o is string => o !== null)
    .reverse();
  return [...new Set([current, ...own])];
}
