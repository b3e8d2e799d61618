/** What a CLI command may touch: its streams, its environment and the clock. */
import type { Clock } from '../clock.js';
import type { Embedder } from '../embed/index.js';
import type { ByteSource } from '../stream/index.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress bars redraw one line there; elsewhere, a few lines). */
  stderrIsTty?: boolean;
  stdin: ByteSource;
  env: Record<string, string | undefined>;
  clock: Clock;
  /** Subscribes to a process signal; returns the unsubscribe function. */
  onSignal: (signal: NodeJS.Signals, handler: () => void) => () => void;
  /**
   * Subscribes to promises rejected with no handler (the real process's `unhandledRejection`;
   * a test's io leaves it out, so that its runner still fails on one); returns the unsubscribe
   * function.
   */
  onUnhandledRejection?: (handler: (reason: unknown) => void) => () => void;
  /**
   * The local model, already loaded, for a command configured to embed with it: commands run
   * in one process (the tests') share one model instead of loading it each time. A command
   * leaves it open. The real process leaves it out: one command, one load.
   */
  localEmbedder?: Embedder;
}

/** Who made a change from the command line, as recorded beside it: `cli (USER)`. */
export function cliActor(io: CliIo): string {
  return `cli (${io.env.USER ?? io.env.LOGNAME ?? 'unknown user'})`;
}

/** Standard input as text, at most `maxBytes` (a hook's payload); what is past it is dropped. */
export async function readStdin(io: CliIo, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const b = Buffer.from(chunk);
    size += b.length;
    if (size > maxBytes) break;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
