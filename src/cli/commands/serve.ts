/**
 * `watchkeeper serve [--demo]` (what `npm start` runs): the scheduler, until SIGTERM or SIGINT.
 * With --demo, a simulated model on loopback stands in for the Anthropic API, the schedule is
 * every minute, and tool calls reach only the simulated commands in demo/bin.
 */
import { fileURLToPath } from 'node:url';

import { checkPromptFiles, loadConfig } from '../../config/index.js';
import { acquireRunnerLock } from '../../runner/lock.js';
import type { Config } from '../../config/index.js';
import { engineOf } from '../../db/index.js';
import type { Conversations } from '../../conversations/index.js';
import type { Logger } from '../../log.js';
import { DEMO_CONVERSATION_ID, DEMO_ROUNDS } from '../../sim/demo-conversation.js';
import { demoScript } from '../../sim/demo-scenario.js';
import { withGatewayJobs } from '../../sim/gateway-jobs.js';
import { startSimulatedModel, type SimulatedModel } from '../../sim/messages-api.js';
import { flag, parse } from '../args.js';
import type { CliIo } from '../io.js';
import { cliLogger } from '../logger.js';
import { installProcessGuard } from '../process-guard.js';
import { claudeOpsDatabaseHint } from '../claudeops-database.js';
import { createDashboard } from '../dashboard.js';
import { createRuntime } from '../runtime.js';
import {
  endpointProof,
  loopbackUrl,
  newEndpointNonce,
  removeServeEndpoint,
  writeServeEndpoint,
} from '../serve-endpoint.js';
import { indexQueueOf, queueSessionLog } from '../../web/graph-instance.js';
import { indexInChildProcess } from '../graph-index-child.js';
import { importInChildProcess } from '../import-child.js';
import { startDailyPrune } from './prune.js';
import { checkListenAddress, startWebServer, type WebServer } from '../../web/server.js';

const DEMO_BIN = fileURLToPath(new URL('../../../demo/bin', import.meta.url));

/** Environment for demo mode: its own data folder and a one-minute schedule unless set. */
export function demoEnv(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  // The simulated model needs no credential: none of the operator's is passed to it.
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('ANTHROPIC_')) out[k] = v;
  out.WATCHKEEPER_DATA_DIR ??= './demo-data';
  out.WATCHKEEPER_SCHEDULE ??= '* * * * *';
  return out;
}

/** Demo mode: the gateway's jobs go to the simulated model over the Messages API. */
export function demoGateway(config: Config, simUrl: string): Config {
  return {
    ...config,
    gateway: {
      ...config.gateway,
      backend: 'anthropic',
      offReason: null,
      url: simUrl,
      key: 'simulated-model-no-key',
      models: { gate: 'haiku', extract: 'sonnet', summary: 'sonnet' },
    },
  };
}

/** How often the demo posts the next round of its chat. */
const DEMO_ROUND_MS = 4000;

/** Rounds of the demo chat posted at once, so its first summary is there from the start. */
const DEMO_FIRST_ROUNDS = 3;

/**
 * Posts the demo chat: the first rounds at once, then one round at a time (from where an
 * earlier demo run stopped), so the window can be seen sliding. The rounds are posted one after
 * another; the returned stop waits for the one being posted, so that none is cut short by the
 * database closing.
 */
function postDemoRounds(
  conversations: Conversations,
  stores: { lastSeq(): Promise<number> },
  log: Logger,
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let posting: Promise<void> = Promise.resolve();
  const next = async (): Promise<boolean> => {
    const round = DEMO_ROUNDS[Math.floor(((await stores.lastSeq()) + 1) / 2)];
    if (!round || stopped) return false;
    await conversations.post(DEMO_CONVERSATION_ID, { role: 'user', content: round[0] });
    await conversations.post(DEMO_CONVERSATION_ID, { role: 'assistant', content: round[1] });
    return true;
  };
  const then = (work: () => Promise<void>) => {
    posting = posting.then(work).catch((err: unknown) => {
      log.warn('demo chat: a round could not be posted', { error: err as Error });
    });
  };
  then(async () => {
    if ((await stores.lastSeq()) < 0) for (let i = 0; i < DEMO_FIRST_ROUNDS; i += 1) await next();
    if (stopped) return;
    timer = setInterval(
      () =>
        then(async () => {
          if (!(await next())) clearInterval(timer);
        }),
      DEMO_ROUND_MS,
    );
    timer.unref();
  });
  return async () => {
    stopped = true;
    clearInterval(timer);
    await posting;
  };
}

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { demo: { type: 'boolean' } });
  const demo = flag(p, 'demo');
  const env = demo ? demoEnv(io.env) : io.env;
  const config = loadConfig(env);
  const log = cliLogger(config, io);
  // Claude Ops settings read with a watchkeeper meaning, and names given twice: said once, here.
  for (const notice of config.notices) log.warn(notice);
  checkListenAddress(config.web);
  checkPromptFiles(config);
  const lock = acquireRunnerLock(config.dataDir, 'serve', io.clock.now());
  const unguard = installProcessGuard(io, log);
  let sim: SimulatedModel | null = null;
  let web: WebServer | null = null;
  try {
    if (demo) {
      // A long-running demo keeps no requests: each holds the CLI's whole system prompt.
      sim = await startSimulatedModel(withGatewayJobs(demoScript), { keepRequests: 0 });
      log.warn(
        'DEMO MODE: sessions run against a SIMULATED model, not Claude; tool calls reach simulated commands only',
        {
          model: sim.url,
          data: config.dataDir,
        },
      );
    } else if (!config.modelCredentialConfigured) {
      log.warn(
        'no ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) is set: every run will fail to log in and be recorded as a failed session',
      );
    }
    // Bound once the runtime exists: the runner knows nothing of the graph.
    let sessionEnded: (id: number) => void = () => {};
    const rt = createRuntime({
      onSessionEnd: (id) => sessionEnded(id),
      config: sim ? demoGateway(config, sim.url) : config,
      clock: io.clock,
      log,
      env,
      simulated: demo,
      ...(sim
        ? {
            childEnvOverrides: {
              ANTHROPIC_BASE_URL: sim.url,
              ANTHROPIC_API_KEY: 'simulated-model-no-key',
              PATH: `${DEMO_BIN}:${env.PATH ?? '/usr/bin:/bin'}`,
            },
          }
        : {}),
    });
    // Before anything can start a session: rows a killed predecessor left `running`.
    await rt.recoverInterrupted();
    // The nonce of this start's endpoint file: the Stop hook checks serve knows it (see there).
    const nonce = newEndpointNonce();
    const onPostgres = engineOf(rt.stores.db) === 'postgres';
    const app = createDashboard(rt, {
      clock: io.clock,
      demo,
      endpointProof: (challenge) => endpointProof(nonce, challenge),
      // An upload's import on PostgreSQL runs in a child process (import-child.ts).
      ...(onPostgres ? { importFile: importInChildProcess(env) } : {}),
    });
    // The memory graph reads each session's log once it has ended, in the background: on
    // PostgreSQL in a child process each (graph-index-child.ts), so that its many round trips do
    // not stop this process's event loop. The queue is made before the first request can ask.
    const graphHost = {
      ...rt,
      clock: io.clock,
      ...(onPostgres ? { indexFile: indexInChildProcess(env) } : {}),
    };
    indexQueueOf(graphHost);
    await rt.startBackground();
    web = await startWebServer(app, config.web);
    sessionEnded = (id) =>
      void queueSessionLog(graphHost, id).catch((err: unknown) =>
        log.warn('graph: could not queue a session log', { session: id, error: err as Error }),
      );
    // The plugin's Stop hook finds this serve here (a credential of user and password only: it
    // cannot sign in, and starts its own indexer instead).
    if (config.web.authToken || !config.web.authUser) {
      writeServeEndpoint(config.dataDir, {
        pid: process.pid,
        url: loopbackUrl(web.url),
        token: config.web.authToken,
        nonce,
      });
    } else {
      removeServeEndpoint(config.dataDir);
    }
    rt.scheduler.start();
    const retention = startDailyPrune({
      stores: rt.stores,
      dataDir: config.dataDir,
      sessionsDir: config.sessionsDir,
      retentionMs: config.retentionMs,
      clock: io.clock,
      log,
    });
    // CLAUDEOPS_STATE_DIR is the data folder: the Go sidecar's database may sit beside ours.
    const goDb = claudeOpsDatabaseHint(config);
    if (goDb && !rt.stores.claudeOpsImport.hasImported()) log.info(goDb);
    const status = rt.scheduler.status();
    log.info('watchkeeper serving', {
      dashboard: web.url,
      auth: config.web.authToken || config.web.authUser ? 'required' : 'none (loopback only)',
      data: config.dataDir,
      schedule: config.runner.schedule ?? 'off (triggers only)',
      next: status.nextRunAt ? new Date(status.nextRunAt).toISOString() : undefined,
      maxTier: config.runner.maxTier,
      dryRun: config.runner.dryRun,
      gateway: config.gateway.backend,
    });
    const gatewayOff = config.gateway.offReason;
    if (gatewayOff) log.info(`conversation summaries and extraction are off: ${gatewayOff}`);
    if (demo) rt.scheduler.trigger({ trigger: 'manual', startTier: 1, prompt: null, alert: null });
    // As the Claude Ops loop did: the first scheduled run now, not at the first cron tick.
    else if (config.runner.runAtStart) rt.scheduler.tick();
    const stopDemoChat = demo
      ? postDemoRounds(
          rt.conversations,
          {
            lastSeq: async () =>
              (await rt.stores.conversations.get(DEMO_CONVERSATION_ID))?.lastSeq ?? -1,
          },
          log,
        )
      : async () => {};

    await new Promise<void>((resolve) => {
      const offs: (() => void)[] = [];
      const shutdown = (signal: string) => {
        for (const off of offs) off();
        log.info('shutting down: no new runs; ending the running session', { signal });
        void rt.scheduler.shutdown().then(resolve);
      };
      offs.push(io.onSignal('SIGTERM', () => shutdown('SIGTERM')));
      offs.push(io.onSignal('SIGINT', () => shutdown('SIGINT')));
      offs.push(
        io.onSignal('SIGUSR2', () => {
          log.info(
            rt.scheduler.stopCurrent()
              ? 'stop requested: ending the running session'
              : 'stop requested, but no session is running',
          );
        }),
      );
    });
    await stopDemoChat();
    retention.stop();
    removeServeEndpoint(config.dataDir);
    await web.close();
    web = null;
    await indexQueueOf({ ...rt, clock: io.clock }).close();
    await rt.close();
    log.info('stopped');
    return 0;
  } finally {
    removeServeEndpoint(config.dataDir);
    await web?.close();
    await sim?.close();
    lock.release();
    unguard();
  }
}
