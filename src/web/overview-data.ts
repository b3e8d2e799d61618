/** The overview numbers, shared by the Overview page's stat cards and /api/v1/stats. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { DAY_MS, MINUTE_MS } from '../clock.js';
import type { ActivityItem } from '../db/index.js';
import type { WebDeps } from './deps.js';
import { groupRepeats, type Repeated } from './repeat-groups.js';
import { runRows } from './session-runs.js';
import { cachedFor } from './ttl-cache.js';

/** What a human should look at: runs that came to one of these. */
const NEEDS_A_HUMAN = new Set(['needs_human', 'failed', 'interrupted']);
const RECENT_RUNS = 50;

/**
 * What the stat cards show, at `deps.clock.now()`: the runs that need a human (last 24 h), the
 * store's counts (critical events over the last 24 h), the latest run, and the runner's state.
 */
export async function overviewStats(deps: WebDeps) {
  const now = deps.clock.now();
  const criticalSince = now - DAY_MS;
  const [lastRun, counts, recent, gateway, gatewayDays] = await Promise.all([
    deps.stores.stats.lastRun(),
    deps.stores.stats.counts(criticalSince),
    runRows(deps.stores, { limit: RECENT_RUNS, offset: 0, filter: { from: criticalSince } }),
    // The model gateway's spending: today against the budget, and per day over the last week.
    deps.gateway.state(),
    deps.stores.gatewayJobs.perDay(Math.floor(now / DAY_MS) * DAY_MS - 6 * DAY_MS),
  ]);
  return {
    now,
    criticalSince,
    counts,
    lastRun,
    // Runs of the last 24 h that need a human, newest first: what the page leads with.
    needsHuman: recent.filter(
      (r) => r.root.trigger !== 'import' && NEEDS_A_HUMAN.has(r.outcome.kind),
    ),
    // The chain's summary, kept on its first session.
    lastRunSummary: lastRun
      ? await deps.stores.sessionRecords.summaryAwaited(lastRun.rootId)
      : null,
    runner: deps.runner.status(),
    disk: diskUseOf(deps),
    gateway,
    gatewayDays,
  };
}

/**
 * The feed's lines: events with the same level, service and message, and repeated changes of
 * one memory, fold into one line with a count (a demo hour is otherwise one line a minute).
 * Sessions each have their own page, so they never fold.
 */
export function activityFeed(
  items: readonly ActivityItem[],
  limit: number,
): Repeated<ActivityItem>[] {
  return groupRepeats(
    items,
    (a) => {
      if (a.kind === 'event') return JSON.stringify([a.kind, a.level, a.service, a.message]);
      if (a.kind === 'memory') return JSON.stringify([a.kind, a.action, a.memoryId, a.observation]);
      return null;
    },
    (a) => a.at,
  ).slice(0, limit);
}

export interface DiskUse {
  /** The database file with its WAL and shared-memory siblings. */
  databaseBytes: number;
  /** The session logs (raw stream and stderr) in sessions/. */
  logBytes: number;
  logFiles: number;
  /** WATCHKEEPER_RETENTION, null when everything is kept. */
  retentionMs: number | null;
  /** The same, as the card shows them. */
  text: { total: string; database: string; logs: string; retention: string | null };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // absent (no WAL yet) or removed meanwhile
  }
}

/** What the data folder holds in the database and the session logs, read from the disk. */
export function measureDiskUse(
  dbPath: string,
  sessionsDir: string,
): Pick<DiskUse, 'databaseBytes' | 'logBytes' | 'logFiles'> {
  const databaseBytes = ['', '-wal', '-shm'].reduce((sum, s) => sum + sizeOf(dbPath + s), 0);
  let logBytes = 0;
  let logFiles = 0;
  let names: string[] = [];
  try {
    names = readdirSync(sessionsDir);
  } catch {
    // no session yet
  }
  for (const name of names) {
    logBytes += sizeOf(join(sessionsDir, name));
    logFiles += 1;
  }
  return { databaseBytes, logBytes, logFiles };
}

// Reading every log's size is cheap once a minute, not on every 10 s refresh of every tab.
const diskCaches = new WeakMap<WebDeps, () => ReturnType<typeof measureDiskUse>>();

function diskUseOf(deps: WebDeps): DiskUse {
  let cached = diskCaches.get(deps);
  if (!cached) {
    cached = cachedFor(
      MINUTE_MS,
      () => deps.clock.now(),
      () => measureDiskUse(deps.config.dbPath, deps.config.sessionsDir),
    );
    diskCaches.set(deps, cached);
  }
  const use = cached();
  const retentionMs = deps.config.retentionMs;
  return {
    ...use,
    retentionMs,
    text: {
      total: formatBytes(use.databaseBytes + use.logBytes),
      database: formatBytes(use.databaseBytes),
      logs: formatBytes(use.logBytes),
      retention: retentionMs === null ? null : `${Math.round(retentionMs / DAY_MS)}d`,
    },
  };
}

/** `512 B`, `3.4 KB`, `12 MB`, `1.5 GB` (powers of 1024). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const text = unit === 0 || value >= 10 ? String(Math.round(value)) : value.toFixed(1);
  return `${text} ${units[unit]}`;
}
