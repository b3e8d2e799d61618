/**
 * Session cookies ended by "Sign out" before they expire. A cookie is signed, not stored, so
 * signing out deletes it from the browser but a copy (a shared machine, a proxy log) would
 * still work until it expires; this list refuses such a copy. Kept in a small file in the data
 * folder so that a restart does not forget it; an entry is dropped once its cookie has expired.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

import type { Logger } from '../log.js';

/** Sign-outs within one cookie lifetime (12 h) beyond this drop the soonest-expiring entry. */
const MAX_ENTRIES = 10_000;

export interface RevokedSessions {
  revoke(id: string, expiresAt: number): void;
  has(id: string): boolean;
}

export function revokedSessions(path: string, now: () => number, log: Logger): RevokedSessions {
  const entries = new Map<string, number>();
  try {
    const saved = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (typeof saved === 'object' && saved !== null) {
      for (const [id, expiresAt] of Object.entries(saved)) {
        if (typeof expiresAt === 'number' && expiresAt > now()) entries.set(id, expiresAt);
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      log.warn('the list of signed-out sessions could not be read; starting with none', {
        path,
        error: err as Error,
      });
    }
  }

  const prune = () => {
    const t = now();
    for (const [id, expiresAt] of entries) if (expiresAt <= t) entries.delete(id);
    if (entries.size > MAX_ENTRIES) {
      const soonest = [...entries].sort((a, b) => a[1] - b[1]);
      for (const [id] of soonest.slice(0, entries.size - MAX_ENTRIES)) entries.delete(id);
    }
  };

  const save = () => {
    try {
      const tmp = `${path}.tmp`;
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(entries)), { mode: 0o600 });
      renameSync(tmp, path);
    } catch (err) {
      // Still refused until a restart; the operator learns that a restart would forget it.
      log.warn('the list of signed-out sessions could not be saved', { path, error: err as Error });
    }
  };

  return {
    revoke(id, expiresAt) {
      if (expiresAt <= now()) return;
      entries.set(id, expiresAt);
      prune();
      save();
    },
    has(id) {
      const expiresAt = entries.get(id);
      return expiresAt !== undefined && expiresAt > now();
    },
  };
}
