/**
 * What this store's own history says of an imported record, before the record is judged by
 * meaning: the record is a memory deleted here (a tombstone has its hash), or a memory that is
 * still here, as it is or as it was before an edit or merge here. Either way the store's newer
 * state wins: nothing is brought back or reactivated, and the report says why.
 */
import type { MemoryRow, PortabilityStore, TombstoneStore } from '../db/index.js';
import { wordingsOf } from '../memory/index.js';

export interface HistoryVerdict {
  /** The memory here that the record is (null for a deleted one). */
  memoryId: number | null;
  why: string;
}

/** A time as a report shows it: `2026-01-01 00:02` (UTC). */
export const utcMinute = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

function clipped(text: string, n = 80): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** Why a memory here is inactive, in a few words (empty when it is active). */
function stateOf(
  m: Pick<MemoryRow, 'active' | 'supersededBy' | 'archivedAt'> & {
    mergedInto: number | null;
  },
): string {
  if (m.active) return '';
  if (m.mergedInto !== null) return `, merged into memory #${m.mergedInto} here`;
  if (m.supersededBy !== null) return `, superseded here by memory #${m.supersededBy}`;
  if (m.archivedAt !== null) return ', archived here';
  return ', inactive here';
}

export function historyVerdict(
  deps: { portability: PortabilityStore; tombstones: TombstoneStore; instance: string },
  r: { scope: string; service: string | null; category: string; text: string; createdAt: number },
  key: string,
): HistoryVerdict | null {
  const tomb = deps.tombstones.find(key, deps.instance);
  if (tomb) {
    return {
      memoryId: null,
      why: `deleted here (memory #${tomb.memoryId}, ${utcMinute(tomb.deletedAt)} UTC by ${tomb.deletedBy}); not brought back`,
    };
  }
  const rows = deps.portability.sameCreation({
    service: r.service,
    category: r.category as MemoryRow['category'],
    scope: r.scope,
    createdAt: r.createdAt,
  });
  for (const m of rows) {
    if (m.observation === r.text)
      return { memoryId: m.id, why: `already here as memory #${m.id}${stateOf(m)}` };
  }
  for (const m of rows) {
    if (wordingsOf(m.observation, m.history).includes(r.text)) {
      return {
        memoryId: m.id,
        why: `memory #${m.id} is this memory, reworded here since (${utcMinute(m.updatedAt)} UTC): it now says "${clipped(m.observation)}"${stateOf(m)}`,
      };
    }
  }
  return null;
}
