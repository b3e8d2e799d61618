/**
 * What this store's own history says of imported records, before they are judged by meaning: a
 * record is a memory deleted here (a tombstone has its hash), or a memory that is still here, as
 * it is or as it was before an edit or merge here. Either way the store's newer state wins:
 * nothing is brought back or reactivated, and the report says why. Read for a whole batch of
 * records at once (a fleet's database is a network hop away).
 */
import type { CreatedMemory, PortabilityStore, Tombstone, TombstoneStore } from '../db/index.js';
import { wordingsOf } from '../memory/index.js';

export interface HistoryVerdict {
  /** The memory here that the record is (null for a deleted one). */
  memoryId: number | null;
  why: string;
}

export interface RecordIdentity {
  scope: string;
  service: string | null;
  category: string;
  text: string;
  createdAt: number;
  key: string;
}

/** A time as a report shows it: `2026-01-01 00:02` (UTC). */
export const utcMinute = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

function clipped(text: string, n = 80): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** Why a memory here is inactive, in a few words (empty when it is active). */
function stateOf(m: CreatedMemory): string {
  if (m.active) return '';
  if (m.mergedInto !== null) return `, merged into memory #${m.mergedInto} here`;
  if (m.supersededBy !== null) return `, superseded here by memory #${m.supersededBy}`;
  if (m.archivedAt !== null) return ', archived here';
  return ', inactive here';
}

function verdict(
  tombs: Map<string, Tombstone>,
  created: CreatedMemory[],
  r: RecordIdentity,
): HistoryVerdict | null {
  const tomb = tombs.get(r.key);
  if (tomb) {
    return {
      memoryId: null,
      why: `deleted here (memory #${tomb.memoryId}, ${utcMinute(tomb.deletedAt)} UTC by ${tomb.deletedBy}); not brought back`,
    };
  }
  const same = created.filter(
    (m) =>
      m.createdAt === r.createdAt &&
      m.service === r.service &&
      m.category === r.category &&
      m.scope === r.scope,
  );
  const exact = same.find((m) => m.observation === r.text);
  if (exact)
    return { memoryId: exact.id, why: `already here as memory #${exact.id}${stateOf(exact)}` };
  const reworded = same.find((m) => wordingsOf(m.observation, m.history).includes(r.text));
  if (!reworded) return null;
  return {
    memoryId: reworded.id,
    why: `memory #${reworded.id} is this memory, reworded here since (${utcMinute(reworded.updatedAt)} UTC): it now says "${clipped(reworded.observation)}"${stateOf(reworded)}`,
  };
}

/** For each record (in order), what this store's history says of it, or null: nothing. */
export function historyVerdicts(
  deps: { portability: PortabilityStore; tombstones: TombstoneStore; instance: string },
  records: readonly RecordIdentity[],
): (HistoryVerdict | null)[] {
  const tombs = deps.tombstones.findMany(
    records.map((r) => r.key),
    deps.instance,
  );
  const created = deps.portability.sameCreations(records.map((r) => r.createdAt));
  return records.map((r) => verdict(tombs, created, r));
}
