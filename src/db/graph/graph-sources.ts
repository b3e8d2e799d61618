/**
 * What the memory graph has read: the conversations indexed (graph_sessions) and, per transcript
 * file, how far and as which file (index_state), so that the next run reads only what was
 * appended and a file rewritten in place is read again. Transcript files are on each instance's
 * own disk: a file's state carries the instance that read it.
 */
import { allAwaited, getAwaited } from '../engine.js';
import { type Db, statementCache } from '../open.js';

export const GRAPH_SESSION_KINDS = ['claude-code', 'subagent', 'watchkeeper'] as const;
export type GraphSessionKind = (typeof GRAPH_SESSION_KINDS)[number];

export interface GraphSessionRow {
  session: string;
  kind: GraphSessionKind;
  /** The session a subagent ran in; null otherwise. */
  parentSession: string | null;
  /** The project (the working directory's last part) when the transcript says. */
  project: string | null;
  title: string | null;
  watchkeeperSessionId: number | null;
  firstAt: number | null;
  lastAt: number | null;
}

export interface GraphSessionSummary extends GraphSessionRow {
  topics: number;
  ideas: number;
}

export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** sha256 of the file's first bytes, up to what was read (a rewrite changes it). */
  headHash: string;
}

export interface IndexState {
  filePath: string;
  session: string;
  byteOffset: number;
  lastLine: number;
  identity: FileIdentity | null;
  /** The pipeline's carry-over between runs, as JSON (graph/carry.ts owns its shape). */
  carry: string | null;
  lastIndexed: number;
  /** The instance that read it (as read back; a saved state is this store's instance's). */
  instance?: string;
}

interface StateRecord {
  filePath: string;
  session: string;
  byteOffset: number;
  lastLine: number;
  fileDev: number | null;
  fileIno: number | null;
  fileSize: number | null;
  fileMtime: number | null;
  headHash: string | null;
  carry: string | null;
  lastIndexed: number;
  instance: string;
}

const STATE_COLUMNS = `file_path AS filePath, session, byte_offset AS byteOffset,
  last_line AS lastLine, file_dev AS fileDev, file_ino AS fileIno, file_size AS fileSize,
  file_mtime AS fileMtime, head_hash AS headHash, carry_json AS carry, last_indexed AS lastIndexed,
  instance`;

const SESSION_COLUMNS = `g.session, g.kind, g.parent_session AS parentSession, g.project, g.title,
  g.watchkeeper_session_id AS watchkeeperSessionId, g.first_at AS firstAt, g.last_at AS lastAt`;

function toState(r: StateRecord): IndexState {
  const identity =
    r.fileDev === null || r.fileIno === null || r.fileSize === null || r.headHash === null
      ? null
      : {
          dev: r.fileDev,
          ino: r.fileIno,
          size: r.fileSize,
          mtimeMs: r.fileMtime ?? 0,
          headHash: r.headHash,
        };
  return {
    filePath: r.filePath,
    session: r.session,
    byteOffset: r.byteOffset,
    lastLine: r.lastLine,
    identity,
    carry: r.carry,
    lastIndexed: r.lastIndexed,
    instance: r.instance,
  };
}

export function createGraphSourceStore(db: Db, instance = 'local') {
  const cached = statementCache(db);
  const upsertSession = db.prepare(`INSERT INTO graph_sessions (session, kind, parent_session,
      project, title, watchkeeper_session_id, first_at, last_at)
    VALUES (@session, @kind, @parentSession, @project, @title, @watchkeeperSessionId, @firstAt, @lastAt)
    ON CONFLICT (session) DO UPDATE SET
      parent_session = coalesce(excluded.parent_session, graph_sessions.parent_session),
      project = coalesce(excluded.project, graph_sessions.project),
      title = coalesce(excluded.title, graph_sessions.title),
      watchkeeper_session_id = coalesce(excluded.watchkeeper_session_id, graph_sessions.watchkeeper_session_id),
      first_at = min(coalesce(graph_sessions.first_at, excluded.first_at), coalesce(excluded.first_at, graph_sessions.first_at)),
      last_at = max(coalesce(graph_sessions.last_at, excluded.last_at), coalesce(excluded.last_at, graph_sessions.last_at))`);
  const putState = db.prepare(`INSERT INTO index_state (file_path, session, byte_offset, last_line,
      file_dev, file_ino, file_size, file_mtime, head_hash, carry_json, last_indexed, instance)
    VALUES (@filePath, @session, @byteOffset, @lastLine, @dev, @ino, @size, @mtimeMs, @headHash,
      @carry, @lastIndexed, @instance)
    ON CONFLICT (file_path) DO UPDATE SET session = excluded.session,
      byte_offset = excluded.byte_offset, last_line = excluded.last_line,
      file_dev = excluded.file_dev, file_ino = excluded.file_ino, file_size = excluded.file_size,
      file_mtime = excluded.file_mtime, head_hash = excluded.head_hash,
      carry_json = excluded.carry_json, last_indexed = excluded.last_indexed,
      instance = excluded.instance`);

  return {
    /** The instance whose transcript files this store's caller reads. */
    instance,

    /** How far a file was read (indexing reads it before its transactions, committed rows). */
    async state(filePath: string): Promise<IndexState | null> {
      const stmt = cached(`SELECT ${STATE_COLUMNS} FROM index_state WHERE file_path = ?`);
      const row = (await getAwaited(stmt, filePath)) as StateRecord | undefined;
      return row ? toState(row) : null;
    },

    saveState(s: IndexState): void {
      const id = s.identity;
      putState.run({
        filePath: s.filePath,
        session: s.session,
        byteOffset: s.byteOffset,
        lastLine: s.lastLine,
        dev: id?.dev ?? null,
        ino: id?.ino ?? null,
        size: id?.size ?? null,
        mtimeMs: id === null ? null : Math.round(id.mtimeMs),
        headHash: id?.headHash ?? null,
        carry: s.carry,
        lastIndexed: s.lastIndexed,
        instance,
      });
    },

    dropState(filePath: string): void {
      cached('DELETE FROM index_state WHERE file_path = ?').run(filePath);
    },

    /** Files indexed, most recently indexed first. */
    states(limit = 1000): IndexState[] {
      return (
        cached(`SELECT ${STATE_COLUMNS} FROM index_state ORDER BY last_indexed DESC LIMIT ?`).all(
          limit,
        ) as StateRecord[]
      ).map(toState);
    },

    upsertSession(s: GraphSessionRow): void {
      upsertSession.run(s);
    },

    async session(session: string): Promise<GraphSessionRow | null> {
      const stmt = cached(`SELECT ${SESSION_COLUMNS} FROM graph_sessions g WHERE g.session = ?`);
      return ((await getAwaited(stmt, session)) as GraphSessionRow | undefined) ?? null;
    },

    /** Several sessions by label, in one statement: those that exist, by label. */
    async sessions(labels: readonly string[]): Promise<Map<string, GraphSessionRow>> {
      const unique = [...new Set(labels)];
      if (unique.length === 0) return new Map();
      const stmt = cached(`SELECT ${SESSION_COLUMNS} FROM graph_sessions g
        WHERE g.session IN (SELECT value FROM json_each(?))`);
      const rows = (await allAwaited(stmt, JSON.stringify(unique))) as GraphSessionRow[];
      return new Map(rows.map((r) => [r.session, r]));
    },

    /** Sessions whose label starts with this prefix (a CLI session id may be given shortened). */
    async sessionsLike(prefix: string, limit = 5): Promise<GraphSessionRow[]> {
      const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
      const stmt = cached(
        `SELECT ${SESSION_COLUMNS} FROM graph_sessions g WHERE g.session LIKE ? ESCAPE '\\' ORDER BY g.session LIMIT ?`,
      );
      return (await allAwaited(stmt, `${escaped}%`, limit)) as GraphSessionRow[];
    },

    /** The graph sessions of a watchkeeper session (its log, and nothing else today). */
    async ofWatchkeeperSession(id: number): Promise<GraphSessionRow[]> {
      const stmt = cached(
        `SELECT ${SESSION_COLUMNS} FROM graph_sessions g WHERE g.watchkeeper_session_id = ? ORDER BY g.session`,
      );
      return (await allAwaited(stmt, id)) as GraphSessionRow[];
    },

    /** Sessions with their counts of topics and ideas, most recent first. */
    async list(opts: { limit?: number; offset?: number } = {}): Promise<GraphSessionSummary[]> {
      const stmt = cached(`SELECT ${SESSION_COLUMNS},
          (SELECT COUNT(*) FROM spans s WHERE s.session = g.session AND s.depth = 0) AS topics,
          (SELECT COUNT(*) FROM ideas i WHERE i.session = g.session) AS ideas
        FROM graph_sessions g ORDER BY coalesce(g.last_at, 0) DESC, g.session LIMIT ? OFFSET ?`);
      return (await allAwaited(stmt, opts.limit ?? 100, opts.offset ?? 0)) as GraphSessionSummary[];
    },

    count(): number {
      return (cached('SELECT COUNT(*) AS n FROM graph_sessions').get() as { n: number }).n;
    },

    /** Drops a session that has nothing indexed left (its file was rewritten as another one). */
    dropIfEmpty(session: string): void {
      cached(`DELETE FROM graph_sessions WHERE session = ?
        AND NOT EXISTS (SELECT 1 FROM spans WHERE session = ?)
        AND NOT EXISTS (SELECT 1 FROM index_state WHERE session = ?)`).run(
        session,
        session,
        session,
      );
    },
  };
}

export type GraphSourceStore = ReturnType<typeof createGraphSourceStore>;
