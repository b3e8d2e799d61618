/**
 * Creating a folder and its missing parents, with an error at once when the system will not let
 * it be created. Node's own `mkdirSync(path, { recursive: true })` loops forever where a parent
 * exists but refuses new entries with ENOENT (`/proc`, some FUSE mounts): a data folder there
 * must fail with a message, not spin a process that nobody watches (the Stop hook's indexer).
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

import { AppError } from './errors.js';

function code(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}

function cannot(dir: string, err: unknown): AppError {
  return new AppError('io_failed', `cannot create the folder ${dir}: ${code(err)}`, {
    cause: err,
    data: { path: dir },
  });
}

/** Makes `path` a folder (parents included, each made once, in order); throws `io_failed`. */
export function makeDir(path: string, mode?: number): void {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      if (statSync(dir).isDirectory()) break;
      throw cannot(dir, Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }));
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (code(err) !== 'ENOENT') throw cannot(dir, err);
    }
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, mode === undefined ? undefined : { mode });
    } catch (err) {
      // Made meanwhile by another process: fine, if it is a folder.
      if (code(err) === 'EEXIST' && statSync(dir, { throwIfNoEntry: false })?.isDirectory())
        continue;
      throw cannot(dir, err);
    }
  }
}
