/** The logger of a long-running command: WATCHKEEPER_LOG_LEVEL and _LOG_FORMAT, on stderr. */
import type { Config } from '../config/index.js';
import { createLogger, type Logger } from '../log.js';
import { configSecrets, type SecretSources } from '../secrets.js';
import type { CliIo } from './io.js';

export function cliLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'> & SecretSources,
  io: CliIo,
): Logger {
  const pretty =
    config.logFormat === 'pretty' || (config.logFormat === 'auto' && io.stderrIsTty === true);
  return createLogger(config.logLevel, io.stderr, () => io.clock.now(), {
    format: pretty ? 'pretty' : 'json',
    colorize: pretty && io.stderrIsTty === true,
    secrets: configSecrets(config),
  });
}
