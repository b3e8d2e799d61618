/** `watchkeeper stop`: ends the session the running `serve` or `run` is executing. */
import { loadConfig } from '../../config/index.js';
import { AppError } from '../../errors.js';
import { lockHolder } from '../../runner/lock.js';
import { parse } from '../args.js';
import type { CliIo } from '../io.js';

export async function stopCommand(argv: string[], io: CliIo): Promise<number> {
  parse(argv, {});
  const config = loadConfig(io.env);
  const holder = lockHolder(config.dataDir);
  if (!holder)
    throw new AppError('not_found', `no watchkeeper runner is running against ${config.dataDir}`);
  process.kill(holder.pid, 'SIGUSR2');
  io.stdout(`asked watchkeeper ${holder.kind} (pid ${holder.pid}) to stop its running session\n`);
  return 0;
}
