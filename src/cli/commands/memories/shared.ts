/**
 * What every `memories` subcommand shares: the app opened around the work (closed whatever
 * happens), the one rule for ids that name no memory, and the confidence flag's reading.
 */
import { AppError } from '../../../errors.js';
import { validateConfidence } from '../../../memory/index.js';
import { openApp } from '../../app.js';
import type { CliIo } from '../../io.js';

export type App = ReturnType<typeof openApp>;

/**
 * One rule for every subcommand that takes ids: an id that names no memory fails the whole
 * command (exit 1) before anything is changed. `history` also accepts a deleted memory, whose
 * history is kept.
 */
export function requireMemories(app: App, ids: readonly number[], orHistory = false): void {
  const missing = [...new Set(ids)].filter(
    (id) =>
      app.stores.memories.get(id) === null &&
      !(orHistory && app.stores.memories.history(id).length > 0),
  );
  if (missing.length === 0) return;
  const which = `no memory with id ${missing.join(', ')}`;
  throw new AppError('not_found', ids.length > 1 ? `${which}; nothing was changed` : which);
}

export const confidenceOf = (v: string | undefined) =>
  v === undefined ? undefined : validateConfidence(v);

export async function withApp(io: CliIo, fn: (app: App) => void | Promise<void>): Promise<number> {
  const app = openApp(io);
  try {
    await fn(app);
    return 0;
  } finally {
    await app.close();
  }
}
