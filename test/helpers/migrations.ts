/**
 * An older release's schema, for testing a migration on the database it finds: a copy of one
 * engine's shipped migrations (`from`: MIGRATIONS_DIR, or its `postgres` folder) up to and
 * including number `last`, in a new folder under `dir`.
 */
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

let copies = 0;

export function migrationsUpTo(dir: string, from: string, last: number): string {
  copies += 1;
  const out = join(dir, `migrations-upto-${last}-${copies}`);
  cpSync(from, out, { recursive: true });
  for (const f of readdirSync(out))
    if (!/^\d{4}_/.test(f) || Number(f.slice(0, 4)) > last) {
      rmSync(join(out, f), { recursive: true });
    }
  return out;
}
