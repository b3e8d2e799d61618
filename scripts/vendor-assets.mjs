// Copies the pinned browser libraries from node_modules into public/vendor (served as /static/vendor).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const out = fileURLToPath(new URL('../public/vendor/', import.meta.url));
mkdirSync(out, { recursive: true });
const files = [
  [join(dirname(require.resolve('htmx.org/package.json')), 'dist/htmx.min.js'), 'htmx.min.js'],
  [join(dirname(require.resolve('htmx-ext-sse/package.json')), 'dist/sse.js'), 'sse.js'],
];
for (const [from, name] of files) copyFileSync(from, join(out, name));
