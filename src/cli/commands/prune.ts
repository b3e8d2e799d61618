/**
 * Retention: `watchkeeper prune [--older-than AGE] [--dry-run]`, and the daily prune `serve` runs
 * when WATCHKEEPER_RETENTION is set. Sessions go with their raw logs (sessions/ID.ndjson,
 * ID.stderr.log and the arrival times ID.times); a log no session names any more goes too once it is older than the cutoff.
 * The Claude CLI's transcripts in DATA_DIR/claude older than the cutoff go too (counted as log
 * files). Memories are never deleted. In a fleet each instance prunes its own sessions and events, and
 * the logs on its own disk.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';

import type { Clock } from '../../clock.js';
import { parseDuration } from '../../config/index.js';
import type { PrunedSession, Stores } from '../../db/index.js';
import type { Logger } from '../../log.js';
import { formatBytes } from '../../web/overview-data.js';
import { openApp } from '../app.js';
import { flag, parse, str, usageError } from '../args.js';
import { json, shortTime } from '../format.js';
import { oldClaudeTranscripts } from './claude-transcripts.js';
import type { CliIo } from '../io.js';

const DAY_MS = 86_400_000;
const LOG_FILE = /^(\d+)\.(ndjson|stderr\.log|times)$/;

export interface PruneReport {
  olderThanMs: number;
  cutoff: number;
  dryRun: boolean;
  sessions: number;
  events: number;
  memoryHistory: number;
  notifications: number;
  logFiles: number;
  logBytes: number;
}

interface PruneDeps {
  stores: Pick<Stores, 'retention'>;
  dataDir: string;
  sessionsDir: string;
  now: number;
}

function sizeIfFile(path: string): number | null {
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

/** The log files to delete with these sessions, and those left by sessions already gone. */
async function logFiles(
  deps: PruneDeps,
  sessions: PrunedSession[],
  cutoff: number,
): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  const root = resolve(deps.sessionsDir) + sep;
  const add = (path: string) => {
    // Only files in sessions/: a log path is never followed out of it.
    if (!path.startsWith(root) || files.has(path)) return;
    const size = sizeIfFile(path);
    if (size !== null) files.set(path, size);
  };
  const pruned = new Set<number>();
  for (const s of sessions) {
    pruned.add(s.id);
    if (s.logPath) add(resolve(deps.dataDir, s.logPath));
    add(resolve(root, `${s.id}.ndjson`));
    add(resolve(root, `${s.id}.stderr.log`));
    add(resolve(root, `${s.id}.times`));
  }
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    return files; // no sessions folder yet
  }
  const [remaining, paths] = await Promise.all([
    deps.stores.retention.sessionIds(),
    deps.stores.retention.logPaths(),
  ]);
  const named = new Set<string>();
  for (const p of paths) {
    const path = resolve(deps.dataDir, p);
    named.add(path);
    named.add(path.replace(/\.ndjson$/, '.stderr.log'));
    named.add(path.replace(/\.ndjson$/, '.times'));
  }
  for (const name of names) {
    const m = LOG_FILE.exec(name);
    if (!m) continue;
    const id = Number(m[1]);
    const path = join(root, name);
    if (pruned.has(id)) {
      add(path);
      continue;
    }
    // Still some session's log: by its id, or by the path it records.
    if (remaining.has(id) || named.has(path)) continue;
    try {
      if (statSync(path).mtimeMs < cutoff) add(path);
    } catch {
      // removed meanwhile
    }
  }
  return files;
}

/**
 * Prunes what is older than `olderThanMs` before `now`. The database work is done in small steps
 * with a yield between them, so that a long first prune does not stall the dashboard.
 */
export async function pruneData(
  deps: PruneDeps,
  olderThanMs: number,
  dryRun: boolean,
): Promise<PruneReport> {
  const cutoff = deps.now - olderThanMs;
  const plan = await deps.stores.retention.plan(cutoff);
  const files = new Map([
    ...(await logFiles(deps, plan.sessions, cutoff)),
    ...oldClaudeTranscripts(deps.dataDir, cutoff),
  ]);
  const report: PruneReport = {
    olderThanMs,
    cutoff,
    dryRun,
    sessions: plan.sessions.length,
    events: plan.events,
    memoryHistory: plan.memoryHistory,
    notifications: plan.notifications,
    logFiles: files.size,
    logBytes: [...files.values()].reduce((a, b) => a + b, 0),
  };
  if (dryRun) return report;
  const pending = [...plan.sessions];
  while (await deps.stores.retention.step(cutoff, pending)) {
    await new Promise((r) => setImmediate(r));
  }
  await deps.stores.retention.searchChanges(deps.now);
  // The rows go first: a log without its row is removed by the next prune, a row without its log
  // would show a session whose activity log is missing.
  for (const path of files.keys()) rmSync(path, { force: true });
  return report;
}

function ageText(ms: number): string {
  return ms % DAY_MS === 0 ? `${ms / DAY_MS}d` : `${Math.round(ms / 3_600_000)}h`;
}

export function pruneSummary(r: PruneReport): string {
  const parts = [
    `${r.sessions} session${r.sessions === 1 ? '' : 's'}`,
    `${r.events} event${r.events === 1 ? '' : 's'}`,
    `${r.memoryHistory} memory history row${r.memoryHistory === 1 ? '' : 's'}`,
    `${r.notifications} notification${r.notifications === 1 ? '' : 's'}`,
    `${r.logFiles} log file${r.logFiles === 1 ? '' : 's'} (${formatBytes(r.logBytes)})`,
  ];
  return parts.join(', ');
}

/** `--older-than`: a duration with its unit (a bare 90 would be 90 seconds), of a day or more. */
function olderThan(text: string): number {
  const ms = /[a-z]\s*$/i.test(text) ? parseDuration(text) : null;
  if (ms === null || ms < DAY_MS) {
    throw usageError(`--older-than must be an age of at least 1d, such as 90d; got "${text}"`);
  }
  return ms;
}

export async function pruneCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, {
    'older-than': { type: 'string' },
    'dry-run': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const given = str(p, 'older-than');
  const app = openApp(io);
  try {
    const age = given !== undefined ? olderThan(given) : app.config.retentionMs;
    if (age === null) {
      throw usageError(
        'give --older-than AGE (such as 90d), or set WATCHKEEPER_RETENTION for a default',
      );
    }
    const r = await pruneData(
      {
        stores: app.stores,
        dataDir: app.config.dataDir,
        sessionsDir: app.config.sessionsDir,
        now: io.clock.now(),
      },
      age,
      flag(p, 'dry-run'),
    );
    if (flag(p, 'json')) {
      io.stdout(
        json({
          older_than_ms: r.olderThanMs,
          cutoff: new Date(r.cutoff).toISOString(),
          dry_run: r.dryRun,
          sessions: r.sessions,
          events: r.events,
          memory_history: r.memoryHistory,
          notifications: r.notifications,
          log_files: r.logFiles,
          log_bytes: r.logBytes,
        }),
      );
      return 0;
    }
    const when = `older than ${ageText(age)} (before ${shortTime(r.cutoff)} UTC)`;
    io.stdout(
      r.dryRun
        ? `would prune what is ${when}: ${pruneSummary(r)}\nnothing was deleted (--dry-run)\n`
        : `pruned what was ${when}: ${pruneSummary(r)}\n`,
    );
    return 0;
  } finally {
    await app.close();
  }
}

/**
 * `serve`'s daily prune when WATCHKEEPER_RETENTION is set: a minute after start-up, then every
 * 24 hours. A failure is logged and the next day tries again; it never stops serving.
 */
export function startDailyPrune(deps: {
  stores: Pick<Stores, 'retention'>;
  dataDir: string;
  sessionsDir: string;
  retentionMs: number | null;
  clock: Clock;
  log: Logger;
  firstAfterMs?: number;
}): { stop(): void } {
  const { retentionMs } = deps;
  if (retentionMs === null) return { stop: () => {} };
  let busy = false;
  const once = async () => {
    if (busy) return;
    busy = true;
    try {
      const r = await pruneData({ ...deps, now: deps.clock.now() }, retentionMs, false);
      deps.log.info(`retention: pruned what was older than ${ageText(retentionMs)}`, {
        sessions: r.sessions,
        events: r.events,
        memoryHistory: r.memoryHistory,
        notifications: r.notifications,
        logFiles: r.logFiles,
        logBytes: r.logBytes,
      });
    } catch (err) {
      deps.log.error('retention: prune failed; it is tried again in a day', { error: err });
    } finally {
      busy = false;
    }
  };
  const first = setTimeout(() => void once(), deps.firstAfterMs ?? 60_000);
  const daily = setInterval(() => void once(), DAY_MS);
  first.unref();
  daily.unref();
  return {
    stop: () => {
      clearTimeout(first);
      clearInterval(daily);
    },
  };
}
