/** A real store (migrated) in a fresh temporary folder, removed again by close(). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openStores } from '../dist/db/index.js';

export function tempStores(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const stores = openStores(join(dir, 'watchkeeper.db'));
  return {
    stores,
    close: () => {
      stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
