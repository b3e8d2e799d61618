/**
 * pgvector, used for the memories' vector list when the database has the extension (an operator
 * ran `CREATE EXTENSION vector`; detected each time the store opens, after the migrations). Every
 * instance then asks PostgreSQL for a query's nearest memories instead of keeping its own vector
 * index: nothing to load at start, no copy of every vector in each process, and one statement per
 * search that answers ids and cosines, not the vectors themselves.
 *
 * The stored vectors stay float32 bytes (`memory_vectors.vector`, the one format both engines
 * read). The setup adds `embedding vector`, filled from them by a trigger on every write (any
 * instance's, whatever its version) and once for the rows already there, and an HNSW index per
 * dimension, made when a search first needs it. The migrations cannot do this: the extension may
 * be created after they ran, and most servers do not have it (Debian's own packages do not).
 */
import { isUnreachableError } from '../reachability.js';
import { underAdvisoryLock } from './advisory-lock.js';
import type { PostgresDb } from './database.js';

/** The advisory lock key of the setup (instances starting at once make it once). */
const SETUP_LOCK = 7_201_613_002;
/**
 * What the setup leaves on its trigger function: a database set up by another version (a
 * different mark) is set up again (every statement of it can run again).
 */
const SETUP_MARK = 'watchkeeper pgvector setup 1';

/**
 * The setup, idempotent. `wk_vector_of` reads float32 little-endian bytes as a vector, exactly
 * (each value rebuilt from its sign, exponent and mantissa in double precision); a value
 * pgvector refuses (NaN, infinity) leaves the row without an embedding, never fails its write.
 */
const SETUP = `
CREATE OR REPLACE FUNCTION wk_vector_of(b bytea) RETURNS vector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT array_agg(
      CASE WHEN e = 0 THEN s * m * 2 ^ (-149) ELSE s * (8388608 + m) * 2 ^ (e - 150) END
      ORDER BY i)::vector
  FROM (SELECT i,
      CASE WHEN get_byte(b, i * 4 + 3) >= 128 THEN -1.0 ELSE 1.0 END::float8 AS s,
      ((get_byte(b, i * 4 + 3) & 127) << 1) | (get_byte(b, i * 4 + 2) >> 7) AS e,
      ((get_byte(b, i * 4 + 2) & 127) << 16) | (get_byte(b, i * 4 + 1) << 8)
        | get_byte(b, i * 4) AS m
    FROM generate_series(0, length(b) / 4 - 1) AS i) f
$$;

ALTER TABLE memory_vectors ADD COLUMN IF NOT EXISTS embedding vector;

CREATE OR REPLACE FUNCTION wk_memory_vectors_embedding() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    NEW.embedding := wk_vector_of(NEW.vector);
  EXCEPTION WHEN others THEN
    NEW.embedding := NULL;
  END;
  RETURN NEW;
END $$;

CREATE OR REPLACE TRIGGER memory_vectors_embedding BEFORE INSERT OR UPDATE OF vector
  ON memory_vectors FOR EACH ROW EXECUTE FUNCTION wk_memory_vectors_embedding();

UPDATE memory_vectors SET embedding = wk_vector_of(vector)
  WHERE embedding IS NULL AND vector IS NOT NULL AND dimension > 0;

CREATE OR REPLACE FUNCTION wk_nearest_memories(q text, dim int, m text, n int)
RETURNS TABLE (memory_id bigint, distance float8)
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  -- As wide as the answer, for this statement.
  PERFORM set_config('hnsw.ef_search', GREATEST(n, 40)::text, true);
  PERFORM set_config('hnsw.iterative_scan', 'strict_order', true);
  RETURN QUERY EXECUTE format(
    'SELECT v.memory_id, (v.embedding::vector(%1$s) <=> $1::vector(%1$s))::float8
       FROM memory_vectors v WHERE v.dimension = %1$s AND v.model = $2
       ORDER BY v.embedding::vector(%1$s) <=> $1::vector(%1$s) LIMIT $3', dim)
    USING q, m, n;
END $fn$;

-- Dropping the extension (CASCADE: the column is of its type) drops these too, and the trigger
-- with its function: vectors are then written as they were before.
ALTER FUNCTION wk_vector_of(bytea) DEPENDS ON EXTENSION vector;
ALTER FUNCTION wk_memory_vectors_embedding() DEPENDS ON EXTENSION vector;
ALTER FUNCTION wk_nearest_memories(text, int, text, int) DEPENDS ON EXTENSION vector;

COMMENT ON FUNCTION wk_memory_vectors_embedding() IS '${SETUP_MARK}';
`;

/** Whether the database has the extension, and whether this setup was made (its mark). */
const STATE = `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS has,
  EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'wk_memory_vectors_embedding'
    AND obj_description(oid, 'pg_proc') = '${SETUP_MARK}') AS done`;

/** Whether the search uses pgvector, and why not when the database has it but it cannot. */
export interface PgvectorUse {
  used: boolean;
  problem: string | null;
}

/**
 * Whether this database has pgvector; if it has, makes the setup (once per database, under a
 * lock: the first instance to start after the extension was created fills every stored vector's
 * embedding, about 0.35 ms each, and the others wait for it). Run synchronously when the store
 * opens, right after the migrations. A setup the database refuses (a role that does not own the
 * tables) leaves the search on this process's own index, and says why.
 */
export function detectPgvector(db: PostgresDb): PgvectorUse {
  const state = () =>
    db.call({ op: 'query', text: STATE, params: [], mode: 'plain' }).rows[0] as {
      has: boolean;
      done: boolean;
    };
  const { has, done } = state();
  if (!has) return { used: false, problem: null };
  if (done) return { used: true, problem: null };
  try {
    underAdvisoryLock(db, SETUP_LOCK, () => {
      if (!state().done) db.call({ op: 'exec', text: SETUP });
    });
    return { used: true, problem: null };
  } catch (err) {
    if (isUnreachableError(err)) throw err;
    return {
      used: false,
      problem: `pgvector is installed in the database but could not be set up, so each instance keeps its own vector index: ${(err as Error).message}`,
    };
  }
}

/** The HNSW index of one dimension's vectors (cosine), as the nearest search reads it. */
export function hnswIndexSql(dimension: number): string {
  const d = Math.trunc(dimension);
  return `CREATE INDEX IF NOT EXISTS memory_vectors_hnsw_${d} ON memory_vectors
    USING hnsw ((embedding::vector(${d})) vector_cosine_ops) WHERE dimension = ${d}`;
}

/** A query vector as pgvector's text form. */
export function vectorLiteral(v: Float32Array): string {
  return `[${Array.from(v).join(',')}]`;
}
