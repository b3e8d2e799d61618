/** `watchkeeper run`: one chain now, in the foreground. Exit 0 when it completed. */
import { loadConfig } from '../../config/index.js';
import { rejectControlCharacters } from '../../memory/validate.js';
import type { Tier } from '../../runner/session-runner.js';
import { acquireRunnerLock } from '../../runner/lock.js';
import { parse, str, toTier, usageError } from '../args.js';
import { EXIT_DONE, EXIT_FAILED } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { cliLogger } from '../logger.js';
import { installProcessGuard } from '../process-guard.js';
import { createRuntime } from '../runtime.js';

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { tier: { type: 'string' }, prompt: { type: 'string' } });
  const tier: Tier = str(p, 'tier') === undefined ? 1 : toTier(str(p, 'tier')!);
  const prompt = str(p, 'prompt');
  if (prompt !== undefined && prompt.trim() === '') throw usageError('--prompt must not be empty');
  if (prompt !== undefined) rejectControlCharacters('--prompt', prompt);
  const config = loadConfig(io.env);
  if (tier > config.runner.maxTier) {
    throw usageError(`--tier ${tier} is above WATCHKEEPER_MAX_TIER (${config.runner.maxTier})`);
  }
  const log = cliLogger(config, io);
  if (!config.modelCredentialConfigured) {
    log.warn(
      'no ANTHROPIC_API_KEY (or other Claude credential) is set: the CLI will fail to log in',
    );
  }
  const lock = acquireRunnerLock(config.dataDir, 'run', io.clock.now());
  const rt = createRuntime({ config, clock: io.clock, log, env: io.env });
  const abort = new AbortController();
  const stop = () => {
    if (!abort.signal.aborted) log.info('stopping the running session');
    abort.abort();
  };
  const offs = (['SIGINT', 'SIGTERM', 'SIGUSR2'] as const).map((s) => io.onSignal(s, stop));
  offs.push(installProcessGuard(io, log));
  try {
    // Before the chain: rows a killed `serve` or `run` left `running`.
    await rt.recoverInterrupted();
    const outcome = await rt.runChain(
      { trigger: 'manual', startTier: tier, prompt: prompt ?? null, alert: null },
      abort.signal,
    );
    for (const id of outcome.sessionIds) {
      const s = rt.stores.sessions.get(id)!;
      io.stdout(`session ${s.id}: tier ${s.tier} ${s.status}${s.error ? ` (${s.error})` : ''}\n`);
    }
    // In the foreground the chain's summary is worth the wait (serve never waits for one).
    await rt.summaries.idle();
    // One delivery round for what the run notified; retries are left to the next `serve`.
    await rt.notifier.tick();
    return outcome.status === 'completed' ? EXIT_DONE : EXIT_FAILED;
  } finally {
    for (const off of offs) off();
    await rt.close();
    lock.release();
  }
}
