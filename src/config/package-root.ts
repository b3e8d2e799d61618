/**
 * The installed package's folder: where the bundled Claude CLI, the default prompts and
 * package.json (the version `--version` and the MCP server report) live.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The version in package.json, read when asked (the hooks that never ask do not pay for it). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
