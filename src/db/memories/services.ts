/**
 * Services and what they are. A service is "seen" when an event, a memory or a cooldown action
 * names it; the services table holds only the ones with a description (or a first sighting that
 * the catalog could describe), and the list below joins both.
 */
import {
  allAwaited,
  getAwaited,
  runAwaited,
  writeAwaited,
  writeNow,
  type WriteStep,
} from '../engine.js';
import { tableWatch } from '../postgres/change-watch.js';
import { type Db } from '../open.js';

export type DescriptionSource = 'operator' | 'agent' | 'catalog';

export interface ServiceInfo {
  name: string;
  description: string | null;
  descriptionSource: DescriptionSource | null;
}

export interface ServiceRow {
  name: string;
  description: string | null;
  descriptionSource: DescriptionSource | null;
  activeMemories: number;
  inactiveMemories: number;
  events: number;
  lastEventAt: number | null;
  cooldownActions: number;
}

// Precedence of a description's source: a lower one never overwrites a higher one.
const RANK: Record<DescriptionSource, number> = { catalog: 1, agent: 2, operator: 3 };

export function createServiceStore(db: Db) {
  const getOne = db.prepare(
    'SELECT name, description, description_source AS descriptionSource FROM services WHERE name = ?',
  );
  const insert = db.prepare(`INSERT INTO services (name, description, description_source,
    created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`);
  // Written unless forced or a description from a higher-ranked source is there (RANK).
  const rank = Object.entries(RANK)
    .map(([source, n]) => `WHEN '${source}' THEN ${n}`)
    .join(' ');
  const update = db.prepare(`UPDATE services SET description = ?, description_source = ?,
    updated_at = ? WHERE name = ? AND (? = 1 OR description_source IS NULL
      OR CASE description_source ${rank} END <= ?)`);
  const describeSteps = (
    name: string,
    description: string | null,
    source: DescriptionSource,
    at: number,
    force: boolean,
  ): WriteStep[] => [
    { stmt: insert, params: [name, null, null, at, at] },
    {
      stmt: update,
      params: [
        description,
        description === null ? null : source,
        at,
        name,
        force ? 1 : 0,
        RANK[source],
      ],
    },
  ];
  const list = db.prepare(`WITH names AS (
      SELECT name FROM services
      UNION SELECT service FROM memories WHERE service IS NOT NULL
      UNION SELECT service FROM events WHERE service IS NOT NULL
      UNION SELECT service FROM cooldown_actions
    )
    SELECT n.name, s.description, s.description_source AS descriptionSource,
      (SELECT COUNT(*) FROM memories m WHERE m.service = n.name AND m.active = 1) AS activeMemories,
      (SELECT COUNT(*) FROM memories m WHERE m.service = n.name AND m.active = 0) AS inactiveMemories,
      (SELECT COUNT(*) FROM events e WHERE e.service = n.name) AS events,
      (SELECT MAX(created_at) FROM events e WHERE e.service = n.name) AS lastEventAt,
      (SELECT COUNT(*) FROM cooldown_actions c WHERE c.service = n.name) AS cooldownActions
    FROM names n LEFT JOIN services s ON s.name = n.name ORDER BY n.name`);
  const described = db.prepare(`SELECT name, description, updated_at AS updatedAt FROM services
    WHERE description IS NOT NULL AND description <> '' ORDER BY name`);
  const describedOfMemories = db.prepare(`SELECT name, description FROM services
    WHERE name IN (SELECT m.service FROM json_each(?) j
      CROSS JOIN memories m ON m.id = CAST(j.value AS BIGINT))
    AND description IS NOT NULL`);
  // On PostgreSQL the described services are kept until the table changes (every search asks).
  const describedChanged = tableWatch(db, 'services');
  let describedRead: Promise<Described[]> | null = null;
  const known = db.prepare(`SELECT 1 FROM services WHERE name = @name
    UNION ALL SELECT 1 FROM memories WHERE service = @name
    UNION ALL SELECT 1 FROM events WHERE service = @name
    UNION ALL SELECT 1 FROM cooldown_actions WHERE service = @name LIMIT 1`);

  return {
    get(name: string): ServiceInfo | null {
      return (getOne.get(name) as ServiceInfo | undefined) ?? null;
    },

    /**
     * The descriptions of these memories' services (those that have one), in one statement: a
     * search reads them beside the memories themselves, not after.
     */
    async descriptionsOfMemoriesAwaited(ids: readonly number[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      return byName((await allAwaited(describedOfMemories, JSON.stringify(ids))) as Described[]);
    },

    /** The services that have a description, with when it last changed (awaited: a search). */
    async describedAwaited(): Promise<{ name: string; description: string; updatedAt: number }[]> {
      if (describedChanged() || describedRead === null) {
        const read = allAwaited(described) as Promise<(Described & { updatedAt: number })[]>;
        describedRead = read;
        // A failed read is not kept: the next search reads again.
        read.catch(() => {
          if (describedRead === read) describedRead = null;
        });
      }
      return (await describedRead) as (Described & { updatedAt: number })[];
    },

    /** Every service seen anywhere, with its counts (awaited: pages, the API, the tools). */
    async list(): Promise<ServiceRow[]> {
      return (await allAwaited(list)) as ServiceRow[];
    },

    /** Whether anything names this service (awaited: the API's and the CLI's search ask). */
    async isKnown(name: string): Promise<boolean> {
      return (await getAwaited(known, { name })) !== undefined;
    },

    /**
     * Records a description unless one from a higher-ranked source is already there. Returns
     * whether it was written. (Triggers re-index the service's memories in the same transaction.)
     */
    describe(
      name: string,
      description: string | null,
      source: DescriptionSource,
      at: number,
      force = false,
    ): boolean {
      return writeNow(db, describeSteps(name, description, source, at, force))[1]!.changes === 1;
    },

    /** The same, awaited (the dashboard, the API, a live session's [SERVICE] marker). */
    async describeAwaited(
      name: string,
      description: string | null,
      source: DescriptionSource,
      at: number,
      force = false,
    ): Promise<boolean> {
      const results = await writeAwaited(db, describeSteps(name, description, source, at, force));
      return results[1]!.changes === 1;
    },

    /** Makes sure a row exists (a first sighting); the catalog's description comes with it. */
    ensure(name: string, catalogDescription: string | null, at: number): void {
      insert.run(...ensureParams(name, catalogDescription, at));
    },

    /** The same, awaited. */
    async ensureAwaited(
      name: string,
      catalogDescription: string | null,
      at: number,
    ): Promise<void> {
      await runAwaited(insert, ...ensureParams(name, catalogDescription, at));
    },
  };
}

interface Described {
  name: string;
  description: string;
}

const byName = (rows: readonly Described[]) => new Map(rows.map((r) => [r.name, r.description]));

const ensureParams = (name: string, description: string | null, at: number) =>
  [name, description, description === null ? null : 'catalog', at, at] as const;

export type ServiceStore = ReturnType<typeof createServiceStore>;
