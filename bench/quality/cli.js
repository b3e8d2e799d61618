/** `watchkeeper ARGV` as a user's shell runs it (the real binary, in a process of its own). */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));

export function cli(env, argv) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...argv],
      { env, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err
          ? reject(new Error(`watchkeeper ${argv.join(' ')}: ${err.message}\n${stderr}`))
          : resolve(stdout),
    );
  });
}
