/**
 * The sessions table read as runs: one chain per root session, listed when any of its sessions
 * matches the Sessions filters, with every session of a page's chains and what each chain came
 * to (its last session's outcome signals). Chains are short (three tiers at most), so walking the
 * parent links costs a few index seeks per session.
 */
import { allAwaited, getAwaited } from '../engine.js';
import { type Db, statementCache } from '../open.js';
import { OUTCOME_SIGNAL_COLUMNS, type OutcomeSignals } from './run-outcome.js';
import { type SessionFilter, sessionWhere } from './session-filter.js';
import { type RawSession, SESSION_COLUMNS, sessionFromRaw } from './session-reads.js';
import type { SessionRow } from './session-types.js';

const marks = (ids: readonly number[]) => ids.map(() => '?').join(', ');

/** The chains (root ids) with a session matching `filter`, as a recursive walk up the parents. */
function matchedRoots(filter: SessionFilter | undefined) {
  const { where, params } = sessionWhere(filter);
  if (where === '') {
    return { sql: 'SELECT id FROM sessions WHERE parent_session_id IS NULL', params };
  }
  return {
    sql: `WITH RECURSIVE up(id, parent) AS (
        SELECT id, parent_session_id FROM sessions ${where}
        UNION
        SELECT s.id, s.parent_session_id FROM sessions s JOIN up ON s.id = up.parent)
      SELECT id FROM up WHERE parent IS NULL`,
    params,
  };
}

/**
 * Read awaited, all of them: the Sessions list, which every open tab polls, reads them (on
 * PostgreSQL the event loop goes on while the server answers).
 */
export function sessionChainReads(db: Db) {
  const cached = statementCache(db);
  return {
    /** Root ids of the chains with a session matching `filter`, newest first. */
    async chainRootsAwaited(opts: {
      limit: number;
      offset: number;
      filter?: SessionFilter;
    }): Promise<number[]> {
      const { sql, params } = matchedRoots(opts.filter);
      const stmt = cached(`${sql} ORDER BY id DESC LIMIT ? OFFSET ?`);
      const rows = (await allAwaited(stmt, ...params, opts.limit, opts.offset)) as { id: number }[];
      return rows.map((r) => r.id);
    },
    async countChainsAwaited(filter?: SessionFilter): Promise<number> {
      const { sql, params } = matchedRoots(filter);
      const stmt = cached(`SELECT COUNT(*) AS n FROM (${sql}) AS roots`);
      return Number(((await getAwaited(stmt, ...params)) as { n: number }).n);
    },
    /** Every session of the chains rooted at `rootIds`, each with its chain's root, by id. */
    async chainSessionsAwaited(
      rootIds: readonly number[],
    ): Promise<(SessionRow & { chainRoot: number })[]> {
      if (rootIds.length === 0) return [];
      const stmt = cached(`WITH RECURSIVE down(id, root, depth) AS (
          SELECT id, id, 0 FROM sessions WHERE id IN (${marks(rootIds)})
          UNION ALL
          SELECT s.id, down.root, down.depth + 1 FROM sessions s
            JOIN down ON s.parent_session_id = down.id WHERE down.depth < 100)
        SELECT down.root AS chainRoot, ${SESSION_COLUMNS}
        FROM down JOIN sessions USING (id) ORDER BY id`);
      const rows = (await allAwaited(stmt, ...rootIds)) as (RawSession & { chainRoot: number })[];
      return rows.map((r) => ({ ...sessionFromRaw(r), chainRoot: r.chainRoot }));
    },
    /** The outcome signals (run-outcome.ts) of each of `ids`, by id. */
    async outcomeSignalsAwaited(ids: readonly number[]): Promise<Map<number, OutcomeSignals>> {
      if (ids.length === 0) return new Map();
      const stmt = cached(
        `SELECT s.id, ${OUTCOME_SIGNAL_COLUMNS} FROM sessions s WHERE s.id IN (${marks(ids)})`,
      );
      const rows = (await allAwaited(stmt, ...ids)) as (OutcomeSignals & { id: number })[];
      return new Map(rows.map(({ id, ...r }) => [id, r]));
    },
  };
}
