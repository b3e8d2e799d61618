/**
 * The memory graph over the data folder for a `graph` subcommand; with `useModel`, its jobs go
 * through the model gateway (refused with the reason when no model is configured).
 */
import { AppError } from '../../../errors.js';
import { createBackend, createGateway, type Gateway } from '../../../gateway/index.js';
import { createGraph, gatewayModel } from '../../../graph/index.js';
import { openApp } from '../../app.js';
import type { CliIo } from '../../io.js';

/** The graph over the data folder; with `useModel`, its jobs go through the model gateway. */
export function openGraph(io: CliIo, useModel = false) {
  const app = openApp(io);
  let gateway: Gateway | null = null;
  if (useModel) {
    if (app.config.gateway.backend === 'off') {
      void app.close();
      throw new AppError(
        'config_invalid',
        `--model: ${app.config.gateway.offReason ?? 'no model'}`,
        {
          data: { variable: 'WATCHKEEPER_GATEWAY' },
        },
      );
    }
    gateway = createGateway({
      config: app.config.gateway,
      backend: createBackend(app.config, io.env),
      jobs: app.stores.gatewayJobs,
      events: app.stores.events,
      clock: io.clock,
    });
  }
  const graph = createGraph({
    db: app.stores.db,
    embedding: app.knowledge.embedding,
    clock: io.clock,
    dataDir: app.config.dataDir,
    sessions: app.stores.sessions,
    maxLineBytes: app.config.maxLineBytes,
    instance: app.stores.instance,
    ...(gateway ? { model: gatewayModel(gateway, `gateway (${app.config.gateway.backend})`) } : {}),
  });
  return {
    app: {
      ...app,
      close: async () => {
        gateway?.close();
        await app.close();
      },
    },
    graph,
  };
}
