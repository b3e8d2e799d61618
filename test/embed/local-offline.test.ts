/**
 * The local backend makes no network request, and runs from the compiled dist/ (npm test builds
 * it first). A child process runs with a preload that makes every connection, name lookup and
 * UDP send throw and records it, in every thread; the control run proves the trap catches
 * attempts from the main thread and from a worker thread alike.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-offline-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function offline(mode: 'embed' | 'control') {
  const log = join(dir, `${mode}.log`);
  const { stdout } = await run(
    process.execPath,
    ['--require', join(FIXTURES, 'no-network.cjs'), join(FIXTURES, 'embed-offline.mjs'), mode],
    {
      env: { PATH: process.env.PATH, NETWORK_LOG: log },
      timeout: 60_000,
    },
  );
  const attempts = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { thread: string; what: string; target: string })
    : [];
  return { stdout, attempts };
}

describe('the local backend offline', () => {
  it('the trap records connections and lookups from the main thread and worker threads', async () => {
    const { attempts } = await offline('control');
    expect(attempts).toEqual([
      { thread: 'main', what: 'connect', target: '127.0.0.1:80' },
      { thread: expect.stringMatching(/^worker \d+$/), what: 'connect', target: '127.0.0.1:80' },
      {
        thread: expect.stringMatching(/^worker \d+$/),
        what: 'dns.lookup',
        target: 'registry.npmjs.org',
      },
    ]);
  });

  it('embeds with the model from dist/ without a single network attempt, then lets the process exit', async () => {
    const { stdout, attempts } = await offline('embed');
    expect(attempts).toEqual([]);
    const result = JSON.parse(stdout) as { model: string; related: number; unrelated: number };
    expect(result.model).toBe('use-lite-512');
    expect(result.related).toBeGreaterThan(result.unrelated + 0.2);
  });

  it('also runs when node evaluates code as ES modules (worker threads inherit --input-type)', async () => {
    const dist = new URL('../../dist/embed/index.js', import.meta.url).href;
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { createEmbedder } = await import(${JSON.stringify(dist)});
         const e = createEmbedder({ backend: 'local', url: null, model: null, key: null, timeoutMs: 60000 });
         const [v] = await e.embedDocuments(['disk almost full on the backup volume']);
         process.stdout.write(String(v.length));`,
      ],
      { env: { PATH: process.env.PATH }, timeout: 60_000 },
    );
    expect(stdout).toBe('512');
  });
});
