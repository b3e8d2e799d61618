/**
 * The data folder when none is set: the first of WATCHKEEPER_DEFAULT_DATA_DIR's folders that
 * exists (the image gives `/state,/data`, so a Claude Ops compose file's ./state volume is used as
 * it is), else the last of them, else ./data. No dependencies: the hooks read it on every turn.
 */
import { statSync } from 'node:fs';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function defaultDataDir(
  list: string | undefined,
  exists: (path: string) => boolean = isDirectory,
): string {
  const dirs = (list ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  return dirs.find(exists) ?? dirs[dirs.length - 1] ?? './data';
}
