/** Raw stream bytes to a file, unmodified, honouring backpressure. */
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { once } from 'node:events';

export interface RawLog {
  /** Resolves once the chunk is buffered; waits for 'drain' when the file falls behind. */
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

export function createRawLog(path: string): RawLog {
  mkdirSync(dirname(path), { recursive: true });
  const file = createWriteStream(path);
  let failure: Error | null = null;
  file.on('error', (err) => {
    failure = err;
  });
  return {
    async write(chunk) {
      if (failure) throw failure;
      if (!file.write(chunk)) await Promise.race([once(file, 'drain'), once(file, 'error')]);
      if (failure) throw failure;
    },
    async close() {
      if (failure) throw failure;
      file.end();
      await once(file, 'finish');
    },
  };
}
