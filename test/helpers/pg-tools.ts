/**
 * Finding and running Debian's PostgreSQL for the tests: its programs' folder, a free port, and
 * the `postgres` user that runs the server when the tests run as root (it refuses root).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The run's migrated database (test/global-postgres.ts) that fresh test databases copy. */
export const TEMPLATE_DB = 'wk_template';

/** The folder holding initdb and pg_ctl: the newest /usr/lib/postgresql/<v>/bin, else PATH. */
export function findBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  // On PATH, often as links: the folder they point into also holds psql.
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) {
      return dirname(realpathSync(join(dir, 'initdb')));
    }
  }
  return null;
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** The uid/gid of the `postgres` user (for running the server when we are root). */
export async function postgresUser(): Promise<{ uid: number; gid: number }> {
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    throw new Error(
      'The tests run as root, and PostgreSQL refuses to run as root, but there is no `postgres` ' +
        "user to run it as. Installing Debian's postgresql package creates it " +
        '(`apt-get install -y --no-install-recommends postgresql`).',
    );
  }
}
