/**
 * Reading a Claude Ops (Go sidecar) database, `$CLAUDEOPS_STATE_DIR/claudeops.db`, at any of its
 * schema versions (goose migrations 00001 to 00007): a column a version lacks reads as null. Its
 * timestamps are TEXT in two formats in the same columns (RFC 3339 from Go, SQLite's
 * `datetime('now')` from SQL and hooks); both are read here, as UTC when no zone is given.
 */
import { existsSync } from 'node:fs';

import { AppError } from '../../errors.js';
import { type Db, openDatabase } from '../open.js';

export interface GoSession {
  id: number;
  tier: unknown;
  model: string | null;
  promptFile: string | null;
  status: string | null;
  startedAt: unknown;
  endedAt: unknown;
  exitCode: unknown;
  logFile: string | null;
  context: string | null;
  response: string | null;
  costUsd: unknown;
  numTurns: unknown;
  durationMs: unknown;
  trigger: string | null;
  promptText: string | null;
  parentSessionId: unknown;
  summary: string | null;
}

export interface GoEvent {
  id: number;
  /** A session id, or (from the event-emit.sh hook) the CLI's session UUID as text. */
  sessionId: unknown;
  level: string | null;
  service: string | null;
  message: string | null;
  createdAt: unknown;
}

export interface GoMemory {
  id: number;
  service: string | null;
  category: string | null;
  observation: string | null;
  confidence: unknown;
  active: unknown;
  createdAt: unknown;
  updatedAt: unknown;
  sessionId: unknown;
  tier: unknown;
}

export interface GoCooldown {
  id: number;
  service: string | null;
  actionType: string | null;
  timestamp: unknown;
  success: unknown;
  tier: unknown;
  error: string | null;
  sessionId: unknown;
}

export interface ClaudeOpsSource {
  path: string;
  /** Names this database whatever its path: when its schema was created. */
  identity: string;
  /** The highest goose migration applied (7 at Claude Ops HEAD), null when unrecorded. */
  schemaVersion: number | null;
  sessions: GoSession[];
  events: GoEvent[];
  memories: GoMemory[];
  cooldowns: GoCooldown[];
  /** Rows of the tables that are not imported, by table (only tables that have rows). */
  otherTables: { table: string; rows: number; keys?: string[] }[];
  close(): void;
}

const TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?(?:\s+[A-Z]{2,5})?$/i;

/**
 * Epoch milliseconds of a Claude Ops timestamp (`2026-06-21T14:03:07Z`, with a fraction or an
 * offset, or `2026-06-21 14:03:07` in UTC), or null when it is not one.
 */
export function parseClaudeOpsTime(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = TIME.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s = '0', frac = '0', zone] = m;
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  // Date.UTC rolls 2026-02-30 over into March: a date that does not exist is not a time.
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return null;
  }
  if (!zone || zone.toUpperCase() === 'Z') return utc;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMin = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return utc - sign * offsetMin * 60_000;
}

function columnsOf(db: Db, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

/** `SELECT col AS alias, ...` with NULL for the columns this schema version lacks. */
function selectAll(db: Db, table: string, columns: Record<string, string>): unknown[] {
  const have = columnsOf(db, table);
  if (have.size === 0) return [];
  const list = Object.entries(columns)
    .map(([alias, col]) => `${have.has(col) ? `"${col}"` : 'NULL'} AS ${alias}`)
    .join(', ');
  return db.prepare(`SELECT ${list} FROM ${table} ORDER BY id`).all();
}

function tableRows(db: Db, table: string): number {
  if (columnsOf(db, table).size === 0) return 0;
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
}

function identityOf(db: Db, path: string, sessions: GoSession[]): string {
  if (columnsOf(db, 'goose_db_version').has('tstamp')) {
    const first = db.prepare('SELECT tstamp FROM goose_db_version ORDER BY id LIMIT 1').get() as
      { tstamp: unknown } | undefined;
    if (first) return `goose ${String(first.tstamp)}`;
  }
  // No version table (an install before goose): the first session names it.
  const s = sessions[0];
  return s ? `first session #${s.id} ${String(s.startedAt)}` : `file ${path}`;
}

/** A file that is not SQLite at all (a text file, a truncated copy): bad input, not a crash. */
function notSqlite(path: string, cause: unknown): AppError {
  const why = (cause as Error).message.replace(/^cannot open database .*?: /, '');
  return new AppError('invalid_input', `${path} is not a Claude Ops database (${why})`, { cause });
}

/** Opens a Claude Ops database read-only and reads the rows to import. */
export function readClaudeOpsDatabase(path: string): ClaudeOpsSource {
  if (!existsSync(path)) {
    throw new AppError(
      'invalid_input',
      `${path}: no such file (the Claude Ops database is $CLAUDEOPS_STATE_DIR/claudeops.db)`,
    );
  }
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(path, { readonly: true });
  } catch (cause) {
    throw notSqlite(path, cause);
  }
  try {
    let sessionColumns: Set<string>;
    try {
      sessionColumns = columnsOf(db, 'sessions');
    } catch (cause) {
      throw notSqlite(path, cause);
    }
    if (sessionColumns.has('cli_session_id')) {
      throw new AppError(
        'invalid_input',
        `${path} is a watchkeeper database, not a Claude Ops one`,
      );
    }
    if (!sessionColumns.has('prompt_file')) {
      throw new AppError(
        'invalid_input',
        `${path} is not a Claude Ops database (it has no sessions table with a prompt_file column)`,
      );
    }
    const sessions = selectAll(db, 'sessions', {
      id: 'id',
      tier: 'tier',
      model: 'model',
      promptFile: 'prompt_file',
      status: 'status',
      startedAt: 'started_at',
      endedAt: 'ended_at',
      exitCode: 'exit_code',
      logFile: 'log_file',
      context: 'context',
      response: 'response',
      costUsd: 'cost_usd',
      numTurns: 'num_turns',
      durationMs: 'duration_ms',
      trigger: 'trigger',
      promptText: 'prompt_text',
      parentSessionId: 'parent_session_id',
      summary: 'summary',
    }) as GoSession[];
    const events = selectAll(db, 'events', {
      id: 'id',
      sessionId: 'session_id',
      level: 'level',
      service: 'service',
      message: 'message',
      createdAt: 'created_at',
    }) as GoEvent[];
    const memories = selectAll(db, 'memories', {
      id: 'id',
      service: 'service',
      category: 'category',
      observation: 'observation',
      confidence: 'confidence',
      active: 'active',
      createdAt: 'created_at',
      updatedAt: 'updated_at',
      sessionId: 'session_id',
      tier: 'tier',
    }) as GoMemory[];
    const cooldowns = selectAll(db, 'cooldown_actions', {
      id: 'id',
      service: 'service',
      actionType: 'action_type',
      timestamp: 'timestamp',
      success: 'success',
      tier: 'tier',
      error: 'error',
      sessionId: 'session_id',
    }) as GoCooldown[];
    const otherTables: ClaudeOpsSource['otherTables'] = [];
    for (const table of ['health_checks', 'service_health_streak', 'config']) {
      const rows = tableRows(db, table);
      if (rows === 0) continue;
      otherTables.push(
        table === 'config'
          ? {
              table,
              rows,
              keys: (
                db.prepare('SELECT key FROM config ORDER BY key').all() as { key: string }[]
              ).map((r) => r.key),
            }
          : { table, rows },
      );
    }
    const version = columnsOf(db, 'goose_db_version').has('version_id')
      ? (
          db
            .prepare('SELECT MAX(version_id) AS v FROM goose_db_version WHERE is_applied = 1')
            .get() as {
            v: number | null;
          }
        ).v
      : null;
    return {
      path,
      identity: identityOf(db, path, sessions),
      schemaVersion: version,
      sessions,
      events,
      memories,
      cooldowns,
      otherTables,
      close: () => db.close(),
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
