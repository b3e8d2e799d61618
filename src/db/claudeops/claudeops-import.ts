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
import type { ClaudeOpsSource } from './claudeops-source.js';
import {
  type ClaudeOpsImportOptions,
  type ClaudeOpsImportReport,
  importReport,
  importTally,
  type ImportKind,
} from './claudeops-report.js';
import { cooldownRow, eventRow, memoryRow, sessionRow } from './claudeops-rows.js';
import { importStatements } from './claudeops-statements.js';
import { intOrNull, shown, textOrNull } from './claudeops-values.js';
import type { Db } from '../engine.js';

export {
  type ClaudeOpsImportOptions,
  type ClaudeOpsImportReport,
  type ImportKind,
  type ImportRemark,
  type KindCounts,
} from './claudeops-report.js';

const DRY_RUN = Symbol('dry run');

/** `instance`: the importing sidecar, written on the sessions, events and cooldown actions. */
export function createClaudeOpsImportStore(db: Db, instance = 'local') {
  const st = importStatements(db);

  return {
    /** True once anything has been imported from a Claude Ops database. */
    hasImported(): boolean {
      return st.anyImported.get() !== undefined;
    },

    /**
     * Imports what `source` holds that this database has not imported yet. With `dryRun`, nothing
     * is written and the report says what would be.
     */
    importDatabase(source: ClaudeOpsSource, opts: ClaudeOpsImportOptions): ClaudeOpsImportReport {
      const { counts, problems, notes, skip, note } = importTally();

      const run = () => {
        const targets: Record<ImportKind, Map<number, number>> = {
          session: new Map(),
          event: new Map(),
          memory: new Map(),
          cooldown: new Map(),
        };
        for (const r of st.mapped.all(source.identity) as {
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
          st.record.run(
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
          if (st.sessionExists.get(target) === undefined) {
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
          const target = Number(st.insertSession.run({ ...row, instance }).lastInsertRowid);
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
          if (target !== undefined && st.sessionExists.get(target) === undefined) continue; // pruned
          if (target !== undefined) st.linkParent.run(target, child);
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
            st.insertEvent.run({
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
            st.insertMemory.run({
              ...row,
              ...decay,
              sessionId,
              active: row.active ? 1 : 0,
              instance: opts.memoryInstance?.(row) ?? 'local',
            }).lastInsertRowid,
          );
          st.insertHistory.run(
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
            st.insertCooldown.run({
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
      return importReport(source, opts.dryRun, counts, problems, notes);
    },
  };
}

export type ClaudeOpsImportStore = ReturnType<typeof createClaudeOpsImportStore>;
