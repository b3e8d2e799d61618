/**
 * Importing a Claude Ops (Go sidecar) database: its sessions, events, memories and cooldown
 * actions become rows here, each recorded in claudeops_imports so that importing the same
 * database again adds nothing. All of it runs in one transaction; a dry run rolls it back, so it
 * reports exactly what a real run would do.
 *
 * A row that cannot be stored (a time that is not a time, a cooldown action that is neither a
 * restart nor a redeployment) is skipped and reported, and is not recorded: importing again after
 * fixing it imports it then. A value stored differently from how it was given (an event level the
 * model invented, a category watchkeeper does not know) is reported as a note.
 */
import { normaliseServiceName, SERVICE_NAME, stripControlCharacters } from '../text-rules.js';
import type { Category } from '../memory/policy.js';
import type {
  ClaudeOpsSource,
  GoCooldown,
  GoEvent,
  GoMemory,
  GoSession,
} from './claudeops-source.js';
import { parseClaudeOpsTime } from './claudeops-source.js';
import type { Db } from './open.js';
import { SESSION_STATUSES, SESSION_TRIGGERS } from './sessions.js';

export type ImportKind = 'session' | 'event' | 'memory' | 'cooldown';
const KINDS: ImportKind[] = ['session', 'event', 'memory', 'cooldown'];

export interface KindCounts {
  /** Rows in the Claude Ops database. */
  found: number;
  /** Added by this run (or, in a dry run, that it would add). */
  imported: number;
  /** Imported by an earlier run. */
  already: number;
  /** Not importable; see `problems`. */
  skipped: number;
}

/** Something about some rows, with how many and the first few ids. */
export interface ImportRemark {
  kind: ImportKind;
  message: string;
  count: number;
  sourceIds: number[];
}

export interface ClaudeOpsImportReport {
  path: string;
  identity: string;
  schemaVersion: number | null;
  dryRun: boolean;
  counts: Record<ImportKind, KindCounts>;
  /** Rows skipped, and why. */
  problems: ImportRemark[];
  /** Rows imported with a value changed or dropped, and how. */
  notes: ImportRemark[];
  /** Tables left behind, and why. */
  notImported: { table: string; rows: number; why: string }[];
}

export interface ClaudeOpsImportOptions {
  now: number;
  dryRun: boolean;
  /**
   * The decay state to store for a memory whose confidence was `confidence` when it last changed
   * (`lastChangedAt`): computed by the caller with src/memory, so that decay goes on from there.
   */
  decayState(m: { confidence: number; lastChangedAt: number; now: number }): {
    baseConfidence: number;
    nextDecayAt: number;
  };
  /** The instance an imported memory belongs to (FLEET when shared); `local` when omitted. */
  memoryInstance?(m: { service: string | null; category: Category }): string;
}

const CATEGORIES: readonly Category[] = [
  'timing',
  'dependency',
  'behavior',
  'remediation',
  'maintenance',
];
/** Where a memory of a category watchkeeper does not know goes (its category stays in source_ref). */
const FALLBACK_CATEGORY: Category = 'behavior';

const OTHER_TABLES: Record<string, string> = {
  health_checks: 'Claude Ops never wrote it at run time; watchkeeper keeps health as events',
  service_health_streak:
    'Claude Ops never wrote it at run time; watchkeeper keeps health as events',
  config: 'dashboard settings Claude Ops never read back; set them in the environment instead',
};

const MAX_IDS = 5;
const DRY_RUN = Symbol('dry run');

/** The Go sidecar's level normalisation (normalizeEventLevel), for rows the hook wrote as given. */
function eventLevel(raw: string): 'info' | 'warning' | 'critical' {
  const l = raw.trim().toLowerCase();
  if (['warning', 'warn', 'degraded'].includes(l)) return 'warning';
  if (['critical', 'error', 'err', 'fatal', 'failure', 'failed'].includes(l)) return 'critical';
  return 'info';
}

/** A service name in watchkeeper's spelling: lower case, and other characters made `-`. */
function serviceName(raw: string | null): { name: string | null; changed: boolean } {
  if (raw === null || raw.trim() === '') return { name: null, changed: false };
  const name = normaliseServiceName(raw);
  if (SERVICE_NAME.test(name)) return { name, changed: false };
  const slug = name
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 100);
  return { name: slug === '' ? null : slug, changed: true };
}

function intOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null;
}

function numOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function textOrNull(value: string | null): string | null {
  return value === null || value === '' ? null : value;
}

/** A printable form of a stored value for a message. */
function shown(value: unknown): string {
  const text = value === null || value === undefined ? 'empty' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** `instance`: the importing sidecar, written on the sessions, events and cooldown actions. */
export function createClaudeOpsImportStore(db: Db, instance = 'local') {
  const mapped = db.prepare(
    'SELECT kind, source_id AS sourceId, target_id AS targetId FROM claudeops_imports WHERE source = ?',
  );
  const record = db.prepare(`INSERT INTO claudeops_imports
    (source, kind, source_id, target_id, detail_json, imported_at) VALUES (?, ?, ?, ?, ?, ?)`);
  const insertSession = db.prepare(`INSERT INTO sessions (status, trigger, tier, model, prompt,
    started_at, ended_at, exit_code, cost_usd, num_turns, duration_ms, response, error, simulated,
    summary, summary_source, summary_status, summary_origin, summary_at, instance)
    VALUES (@status, @trigger, @tier, @model, @prompt, @startedAt, @endedAt, @exitCode, @costUsd,
    @numTurns, @durationMs, @response, @error, 0, @summary,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE 'model' END,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE 'done' END,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE 'claudeops' END,
    CASE WHEN CAST(@summary AS TEXT) IS NULL THEN NULL ELSE COALESCE(@endedAt, @startedAt) END, @instance)`);
  const linkParent = db.prepare(
    'UPDATE sessions SET parent_session_id = ? WHERE id = ? AND parent_session_id IS NULL',
  );
  // A session imported earlier may have been pruned since (retention): nothing may point at it.
  const sessionExists = db.prepare('SELECT 1 FROM sessions WHERE id = ?');
  const insertEvent = db.prepare(`INSERT INTO events
    (session_id, source, level, service, message, created_at, instance)
    VALUES (@sessionId, @source, @level, @service, @message, @createdAt, @instance)`);
  const insertMemory = db.prepare(`INSERT INTO memories (service, category, observation,
    confidence, base_confidence, active, pinned, created_at, updated_at, last_reinforced_at,
    session_id, tier, next_decay_at, importance, source, source_ref, scope, instance)
    VALUES (@service, @category, @observation, @confidence, @baseConfidence, @active, 0,
    @createdAt, @updatedAt, @updatedAt, @sessionId, @tier, @nextDecayAt, 'normal', 'import',
    @sourceRef, 'ops', @instance)`);
  const insertHistory = db.prepare(`INSERT INTO memory_history (memory_id, action, old_confidence,
    new_confidence, observation, session_id, created_at, source, evidence)
    VALUES (?, 'imported', NULL, ?, ?, ?, ?, 'import', ?)`);
  const insertCooldown = db.prepare(`INSERT INTO cooldown_actions
    (service, action_type, success, source, command, message, tier, session_id, created_at,
    instance)
    VALUES (@service, @actionType, @success, 'agent', NULL, @message, @tier, @sessionId, @createdAt,
    @instance)`);

  const anyImported = db.prepare('SELECT 1 FROM claudeops_imports LIMIT 1');

  return {
    /** True once anything has been imported from a Claude Ops database. */
    hasImported(): boolean {
      return anyImported.get() !== undefined;
    },

    /**
     * Imports what `source` holds that this database has not imported yet. With `dryRun`, nothing
     * is written and the report says what would be.
     */
    importDatabase(source: ClaudeOpsSource, opts: ClaudeOpsImportOptions): ClaudeOpsImportReport {
      const counts = Object.fromEntries(
        KINDS.map((k) => [k, { found: 0, imported: 0, already: 0, skipped: 0 }]),
      ) as Record<ImportKind, KindCounts>;
      const problems = new Map<string, ImportRemark>();
      const notes = new Map<string, ImportRemark>();
      const remark = (
        into: Map<string, ImportRemark>,
        kind: ImportKind,
        id: number,
        message: string,
      ) => {
        const key = `${kind}\u0000${message}`;
        const r = into.get(key) ?? { kind, message, count: 0, sourceIds: [] };
        r.count += 1;
        if (r.sourceIds.length < MAX_IDS) r.sourceIds.push(id);
        into.set(key, r);
      };
      const skip = (kind: ImportKind, id: number, message: string) => {
        counts[kind].skipped += 1;
        remark(problems, kind, id, message);
      };
      const note = (kind: ImportKind, id: number, message: string) =>
        remark(notes, kind, id, message);

      const run = () => {
        const targets: Record<ImportKind, Map<number, number>> = {
          session: new Map(),
          event: new Map(),
          memory: new Map(),
          cooldown: new Map(),
        };
        for (const r of mapped.all(source.identity) as {
          kind: ImportKind;
          sourceId: number;
          targetId: number;
        }[]) {
          targets[r.kind].set(r.sourceId, r.targetId);
        }
        const remember = (
          kind: ImportKind,
          sourceId: number,
          targetId: number,
          detail: object | null,
        ) => {
          record.run(
            source.identity,
            kind,
            sourceId,
            targetId,
            detail && JSON.stringify(detail),
            opts.now,
          );
          targets[kind].set(sourceId, targetId);
          counts[kind].imported += 1;
        };
        const isNew = (kind: ImportKind, id: number): boolean => {
          counts[kind].found += 1;
          if (!targets[kind].has(id)) return true;
          counts[kind].already += 1;
          return false;
        };
        /** The session a row names, here; null (with a note) when it names none that was imported. */
        const sessionOf = (kind: ImportKind, id: number, value: unknown): number | null => {
          if (value === null || value === undefined) return null;
          const n =
            typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
          if (Number.isNaN(n)) {
            note(
              kind,
              id,
              `its session_id ${shown(value)} is not a session (the CLI's id, written by a hook): imported without a session`,
            );
            return null;
          }
          const target = targets.session.get(n);
          if (target === undefined) {
            note(kind, id, `its session ${n} was not imported: imported without a session`);
            return null;
          }
          if (sessionExists.get(target) === undefined) {
            note(kind, id, `its session ${n} was pruned here: imported without a session`);
            return null;
          }
          return target;
        };

        const importedNow = new Set<number>();
        for (const s of source.sessions) {
          if (!isNew('session', s.id)) continue;
          const row = sessionRow(s, opts.now, (m) => note('session', s.id, m));
          if (typeof row === 'string') {
            skip('session', s.id, row);
            continue;
          }
          const target = Number(insertSession.run({ ...row, instance }).lastInsertRowid);
          const detail = Object.fromEntries(
            Object.entries({
              summary: s.summary,
              context: s.context,
              prompt_file: s.promptFile,
              log_file: s.logFile,
            }).filter(([, v]) => textOrNull(v) !== null),
          );
          remember('session', s.id, target, Object.keys(detail).length > 0 ? detail : null);
          importedNow.add(s.id);
        }
        // Chains: a parent may come after its child in a hand-edited database, so links go last.
        for (const s of source.sessions) {
          const parent = intOrNull(s.parentSessionId);
          const child = targets.session.get(s.id);
          if (parent === null || child === undefined) continue;
          const target = targets.session.get(parent);
          if (target !== undefined && sessionExists.get(target) === undefined) continue; // pruned
          if (target !== undefined) linkParent.run(target, child);
          else if (importedNow.has(s.id)) {
            note(
              'session',
              s.id,
              `its parent session ${parent} was not imported: imported as a run of its own`,
            );
          }
        }

        for (const e of source.events) {
          if (!isNew('event', e.id)) continue;
          const row = eventRow(e, (m) => note('event', e.id, m));
          if (typeof row === 'string') {
            skip('event', e.id, row);
            continue;
          }
          const target = Number(
            insertEvent.run({
              ...row,
              sessionId: sessionOf('event', e.id, e.sessionId),
              instance,
            }).lastInsertRowid,
          );
          remember('event', e.id, target, null);
        }

        for (const m of source.memories) {
          if (!isNew('memory', m.id)) continue;
          const row = memoryRow(m, (msg) => note('memory', m.id, msg));
          if (typeof row === 'string') {
            skip('memory', m.id, row);
            continue;
          }
          const sessionId = sessionOf('memory', m.id, m.sessionId);
          const decay = opts.decayState({
            confidence: row.confidence,
            lastChangedAt: row.updatedAt,
            now: opts.now,
          });
          const target = Number(
            insertMemory.run({
              ...row,
              ...decay,
              sessionId,
              active: row.active ? 1 : 0,
              instance: opts.memoryInstance?.(row) ?? 'local',
            }).lastInsertRowid,
          );
          insertHistory.run(
            target,
            row.confidence,
            row.observation,
            sessionId,
            opts.now,
            `Claude Ops memory #${m.id}, created ${new Date(row.createdAt).toISOString()}, last changed ${new Date(row.updatedAt).toISOString()}`,
          );
          remember('memory', m.id, target, null);
        }

        for (const c of source.cooldowns) {
          if (!isNew('cooldown', c.id)) continue;
          const row = cooldownRow(c, (m) => note('cooldown', c.id, m));
          if (typeof row === 'string') {
            skip('cooldown', c.id, row);
            continue;
          }
          const target = Number(
            insertCooldown.run({
              ...row,
              sessionId: sessionOf('cooldown', c.id, c.sessionId),
              instance,
            }).lastInsertRowid,
          );
          remember('cooldown', c.id, target, null);
        }
        if (opts.dryRun) throw DRY_RUN;
      };

      try {
        db.transaction(run)();
      } catch (err) {
        if (err !== DRY_RUN) throw err;
      }
      return {
        path: source.path,
        identity: source.identity,
        schemaVersion: source.schemaVersion,
        dryRun: opts.dryRun,
        counts,
        problems: [...problems.values()],
        notes: [...notes.values()],
        notImported: source.otherTables.map((t) => ({
          table: t.table,
          rows: t.rows,
          why:
            (OTHER_TABLES[t.table] ?? 'not a table watchkeeper keeps') +
            (t.keys ? ` (${t.keys.join(', ')})` : ''),
        })),
      };
    },
  };
}

export type ClaudeOpsImportStore = ReturnType<typeof createClaudeOpsImportStore>;

/** A session row, or why it cannot be one. */
function sessionRow(s: GoSession, now: number, note: (m: string) => void) {
  const startedAt = parseClaudeOpsTime(s.startedAt);
  if (startedAt === null) return `started_at ${shown(s.startedAt)} is not a time`;
  const tier = intOrNull(s.tier);
  if (tier === null || tier < 1 || tier > 3) return `tier ${shown(s.tier)} is not 1, 2 or 3`;
  let endedAt = parseClaudeOpsTime(s.endedAt);
  if (endedAt === null && s.endedAt !== null) {
    note(`ended_at ${shown(s.endedAt)} is not a time: imported without an end`);
  }
  const given = (s.status ?? '').trim().toLowerCase();
  let status = given as (typeof SESSION_STATUSES)[number];
  let error: string | null = null;
  if (given === 'running') {
    // It was cut short when Claude Ops stopped: as watchkeeper's own start-up records such a run.
    status = 'interrupted';
    endedAt ??= now;
    error = 'still running in Claude Ops when it was imported';
  } else if (!(SESSION_STATUSES as readonly string[]).includes(given)) {
    status = 'failed';
    error = `Claude Ops status ${shown(s.status)}`;
    note(`status ${shown(s.status)} is not one watchkeeper knows: imported as failed`);
  }
  const givenTrigger = (s.trigger ?? 'scheduled').trim().toLowerCase();
  const trigger = (SESSION_TRIGGERS as readonly string[]).includes(givenTrigger)
    ? givenTrigger
    : 'import';
  if (trigger !== givenTrigger)
    note(`trigger ${shown(s.trigger)} is not one watchkeeper knows: imported as import`);
  return {
    status,
    trigger,
    tier,
    model: textOrNull(s.model),
    prompt: textOrNull(s.promptText),
    startedAt,
    endedAt,
    exitCode: intOrNull(s.exitCode),
    costUsd: numOrNull(s.costUsd),
    numTurns: intOrNull(s.numTurns),
    durationMs: intOrNull(s.durationMs),
    response: textOrNull(s.response),
    error,
    // The Go sidecar's summarize.go wrote it through a model; shown as the session's summary.
    summary: s.summary === null || s.summary.trim() === '' ? null : s.summary.trim(),
  };
}

/** Claude Ops' own events (not the agent's) begin with these words (manager.go). */
const SYSTEM_EVENT = /^Escalation (blocked|suppressed)\b/;

function eventRow(e: GoEvent, note: (m: string) => void) {
  const createdAt = parseClaudeOpsTime(e.createdAt);
  if (createdAt === null) return `created_at ${shown(e.createdAt)} is not a time`;
  const level = eventLevel(e.level ?? '');
  if (level !== (e.level ?? '').trim().toLowerCase()) {
    note(`level ${shown(e.level)} stored as ${level}, as Claude Ops reads it`);
  }
  const service = serviceName(e.service);
  if (service.changed) note(`service ${shown(e.service)} stored as ${shown(service.name)}`);
  const message = stripControlCharacters(e.message ?? '');
  return {
    source: SYSTEM_EVENT.test(message) ? 'system' : 'agent',
    level,
    service: service.name,
    message,
    createdAt,
  };
}

function memoryRow(m: GoMemory, note: (msg: string) => void) {
  const createdAt = parseClaudeOpsTime(m.createdAt);
  if (createdAt === null) return `created_at ${shown(m.createdAt)} is not a time`;
  let updatedAt = parseClaudeOpsTime(m.updatedAt);
  if (updatedAt === null) {
    note(`updated_at ${shown(m.updatedAt)} is not a time: its creation time is used`);
    updatedAt = createdAt;
  }
  const observation = stripControlCharacters(m.observation ?? '').trim();
  if (observation === '') return 'its observation is empty';
  const givenCategory = (m.category ?? '').trim().toLowerCase();
  let category = givenCategory as Category;
  let sourceRef = `Claude Ops memory #${m.id}`;
  if (!CATEGORIES.includes(category)) {
    category = FALLBACK_CATEGORY;
    sourceRef += `, category ${shown(m.category)}`;
    note(
      `category ${shown(m.category)} is not one of ${CATEGORIES.join(', ')}: imported as ${FALLBACK_CATEGORY}`,
    );
  }
  const given = numOrNull(m.confidence);
  const confidence =
    given === null ? 0.7 : Math.round(Math.min(1, Math.max(0, given)) * 10_000) / 10_000;
  if (given === null || Math.abs(given - confidence) > 1e-9) {
    note(`confidence ${shown(m.confidence)} stored as ${confidence}`);
  }
  let tier = intOrNull(m.tier) ?? 1;
  if (tier < 0 || tier > 3) {
    note(`tier ${shown(m.tier)} is not 0 to 3: imported as tier 1`);
    tier = 1;
  }
  const service = serviceName(m.service);
  if (service.changed) note(`service ${shown(m.service)} stored as ${shown(service.name)}`);
  return {
    service: service.name,
    category,
    observation,
    confidence,
    active: intOrNull(m.active) !== 0,
    createdAt,
    updatedAt,
    tier,
    sourceRef,
  };
}

function cooldownRow(c: GoCooldown, note: (m: string) => void) {
  const createdAt = parseClaudeOpsTime(c.timestamp);
  if (createdAt === null) return `timestamp ${shown(c.timestamp)} is not a time`;
  const actionType = (c.actionType ?? '').trim().toLowerCase();
  if (actionType !== 'restart' && actionType !== 'redeployment') {
    return `action_type ${shown(c.actionType)} is neither restart nor redeployment`;
  }
  const service = serviceName(c.service);
  if (service.name === null) return 'it names no service';
  if (service.changed) note(`service ${shown(c.service)} stored as ${shown(service.name)}`);
  return {
    service: service.name,
    actionType,
    success: intOrNull(c.success) === 0 ? 0 : 1,
    message: textOrNull(c.error),
    tier: intOrNull(c.tier),
    createdAt,
  };
}
