/**
 * Instances sharing one PostgreSQL test database (a copy of the run's migrated template), each
 * with its own stores (its own connection and text index) and a knowledge layer without
 * embeddings, on one fake clock. Two of the same name are two processes of one instance.
 */
import { openStores, type Stores } from '../../src/db/index.js';
import { createKnowledge, type Knowledge } from '../../src/knowledge/index.js';
import { type FakeClock, fakeClock } from './clock.js';
import { migratedDatabaseSync } from './postgres.js';

export interface PgInstance {
  stores: Stores;
  knowledge: Knowledge;
}

export interface PgFleet {
  instances: PgInstance[];
  clock: FakeClock;
  /** Closes every instance's stores, then gives the database back. */
  close(): void;
}

export function pgFleet(names: readonly string[]): PgFleet {
  const db = migratedDatabaseSync();
  const clock = fakeClock();
  const opened: Stores[] = [];
  const close = () => {
    for (const stores of opened.splice(0)) stores.close();
    db.drop();
  };
  try {
    const instances = names.map((name) => {
      const stores = openStores(db.url, { instance: name });
      opened.push(stores);
      return { stores, knowledge: createKnowledge({ stores, embedder: null, clock }) };
    });
    return { instances, clock, close };
  } catch (err) {
    close();
    throw err;
  }
}
