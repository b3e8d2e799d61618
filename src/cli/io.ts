/** What a CLI command may touch: its streams, its environment and the clock. */
import type { Clock } from '../clock.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: AsyncIterable<Uint8Array | string>;
  env: Record<string, string | undefined>;
  clock: Clock;
}
