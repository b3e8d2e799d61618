/** Composition root: the real process's streams, environment and clock, handed to the CLI. */
import type { CliIo } from './cli/io.js';
import { systemClock } from './clock.js';

/** What a command run by this process touches: the real streams, signals and environment. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTty: process.stderr.isTTY === true,
    stdin: process.stdin,
    env: process.env,
    clock: systemClock,
    onSignal: (signal, handler) => {
      process.on(signal, handler);
      return () => process.off(signal, handler);
    },
    onUnhandledRejection: (handler) => {
      process.on('unhandledRejection', handler);
      return () => process.off('unhandledRejection', handler);
    },
  };
}

export async function main(argv: string[]): Promise<number> {
  const io = processIo();
  // The plugin's Stop hook runs after every turn of a Claude Code session: it loads only itself.
  if (argv[0] === 'graph' && argv[1] === 'hook') {
    const { graphHookCommand } = await import('./cli/commands/graph-hook.js');
    return graphHookCommand(argv.slice(2), io);
  }
  const { runCli } = await import('./cli/main.js');
  return runCli(argv, io);
}
