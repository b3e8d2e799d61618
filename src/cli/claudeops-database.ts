/**
 * Where serve looks for a Claude Ops database to offer for import: the data folder (a Claude Ops
 * volume kept with CLAUDEOPS_STATE_DIR), and the Go sidecar's default /state when the data folder
 * is watchkeeper's own (the image's /data) and a Claude Ops volume is still mounted there.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { Config } from '../config/index.js';

/** Claude Ops' state folder when CLAUDEOPS_STATE_DIR was not set. */
export const CLAUDEOPS_DEFAULT_STATE_DIR = '/state';

/** What serve says about a Claude Ops database it finds, or null when there is none. */
export function claudeOpsDatabaseHint(
  config: Pick<Config, 'dataDir' | 'sources'>,
  exists: (path: string) => boolean = existsSync,
): string | null {
  const here = join(config.dataDir, 'claudeops.db');
  if (exists(here)) {
    return `a Claude Ops database is in the data folder: \`watchkeeper import-claudeops ${here}\` imports its history`;
  }
  const old = join(CLAUDEOPS_DEFAULT_STATE_DIR, 'claudeops.db');
  if (config.sources.DATA_DIR === undefined && exists(old)) {
    return (
      `a Claude Ops database is at ${old}, outside the data folder ${config.dataDir}: ` +
      `\`watchkeeper import-claudeops ${old}\` imports its history (or set CLAUDEOPS_STATE_DIR=${CLAUDEOPS_DEFAULT_STATE_DIR} to keep the data there)`
    );
  }
  return null;
}
