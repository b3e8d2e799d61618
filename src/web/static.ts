/** Files under public/, served at /static/ (no directory listing, no paths outside public/). */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Context } from 'hono';

export const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

function decoded(path: string): string | null {
  try {
    return decodeURIComponent(path);
  } catch {
    return null; // a malformed % escape names no file
  }
}

export async function serveStatic(c: Context) {
  const name = decoded(c.req.path.slice('/static/'.length));
  if (name === null) return c.notFound();
  const rel = normalize(name);
  const type = TYPES[extname(rel)];
  if (!type || rel.startsWith('..') || rel.includes(`${sep}..`) || rel.startsWith(sep))
    return c.notFound();
  try {
    const body = await readFile(join(PUBLIC_DIR, rel));
    return c.body(body, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=300' });
  } catch {
    return c.notFound();
  }
}
