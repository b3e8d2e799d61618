/** Composition root: the real process's streams, environment and clock, handed to the CLI. */
import { runCli } from './cli/main.js';
import { systemClock } from './clock.js';

export async function main(argv: string[]): Promise<number> {
  return runCli(argv, {
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
  });
}
