/** The installed package's folder: where the bundled Claude CLI and the default prompts live. */
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
