/**
 * Delivery through the `apprise` command, as the Go sidecar did, but with the URL in a private
 * temporary config file (mode 0600) instead of argv, where `ps` would show it to every user of
 * the machine. The command gets a minimal environment: none of watchkeeper's secrets.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

import type { OutgoingMessage } from './webhooks.js';

/** The first executable `name` on `pathVar` (a PATH value), or null. */
export function findOnPath(name: string, pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

const PASSED_ENV = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TMPDIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
];

export function sendApprise(
  bin: string,
  url: string,
  m: OutgoingMessage,
  o: { timeoutMs: number; env: Record<string, string | undefined> },
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-apprise-'));
  const config = join(dir, 'apprise.txt');
  writeFileSync(config, `${url}\n`, { mode: 0o600 });
  const env: Record<string, string> = {};
  for (const k of PASSED_ENV) if (o.env[k] !== undefined) env[k] = o.env[k]!;
  const args = [
    `--title=${m.title}`,
    `--body=${m.body}`,
    `--notification-type=${m.level}`,
    '--input-format=text',
    `--config=${config}`,
  ];
  return new Promise<void>((resolve, reject) => {
    execFile(
      bin,
      args,
      { env, timeout: o.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 256 * 1024 },
      (err, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        if (!err) return resolve();
        const out = `${stderr}\n${stdout}`.replace(/\s+/g, ' ').trim().slice(-300);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        if (e.killed)
          return reject(
            new Error(`apprise gave no answer within ${Math.round(o.timeoutMs / 1000)}s`),
          );
        if (typeof e.code === 'string') return reject(new Error(`cannot run apprise: ${e.code}`));
        reject(new Error(`apprise exited with code ${e.code}${out ? `: ${out}` : ''}`));
      },
    );
  });
}
