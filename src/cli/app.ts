/**
 * Composition for one CLI command: config, database (migrated) and the knowledge layer. The
 * embedder is created but loads nothing until a command embeds something.
 */
import { loadConfig, type Config } from '../config/index.js';
import { openStores, type Stores } from '../db/index.js';
import { createEmbedder } from '../embed/index.js';
import { createKnowledge, type Knowledge } from '../knowledge/index.js';
import type { CliIo } from './io.js';

export interface CliApp {
  config: Config;
  stores: Stores;
  knowledge: Knowledge;
  close(): Promise<void>;
}

export function openApp(io: CliIo): CliApp {
  const config = loadConfig(io.env);
  const stores = openStores(config.fleet.databaseUrl ?? config.dbPath, {
    instance: config.fleet.instance,
  });
  const shared = config.embeddings.backend === 'local' ? io.localEmbedder : undefined;
  const embedder = shared ?? createEmbedder(config.embeddings);
  const knowledge = createKnowledge({ stores, embedder, clock: io.clock, fleet: config.fleet });
  return {
    config,
    stores,
    knowledge,
    close: async () => {
      if (embedder !== shared) await embedder?.close();
      stores.close();
    },
  };
}
