/**
 * The Stop hook with no serve: each hook leaves its transcript for one detached indexer, started
 * only when none runs (a lock across processes, naming its holder by pid and start time), which
 * reads every request left, only in the folders of transcripts. A data folder the system will
 * not let it create is an error at once, never a spin.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { claimIndexerLock, hasRequests, releaseIndexerLock } from '../../src/cli/hook-requests.js';
import { makeDir } from '../../src/make-dir.js';
import { cliIn } from '../helpers/cli.js';
import { PROJECTS, SESSION } from '../helpers/graph.js';

let root: string;
let projects: string;
/** Another live process, standing for an indexer that is running. */
let indexer: ChildProcess;
beforeEach(() => {
  indexer = spawn('sleep', ['600'], { stdio: 'ignore' });
  root = mkdtempSync(join(tmpdir(), 'watchkeeper-hook-'));
  projects = join(root, 'home', '.claude', 'projects');
  cpSync(PROJECTS, projects, { recursive: true });
});
afterEach(() => {
  indexer.kill();
  rmSync(root, { recursive: true, force: true });
});

const stop = (transcript: string, last = 'Immich') =>
  JSON.stringify({
    hook_event_name: 'Stop',
    transcript_path: transcript,
    last_assistant_message: last,
  });

/** The same conversation under another id (another transcript file of the projects folder). */
function transcript(n: number): string {
  const path = join(
    projects,
    '-home-ops-homelab',
    `${SESSION.slice(0, -2)}${String(n).padStart(2, '0')}.jsonl`,
  );
  const text = readFileSync(join(projects, '-home-ops-homelab', `${SESSION}.jsonl`), 'utf8');
  writeFileSync(
    path,
    text.replaceAll(SESSION, `${SESSION.slice(0, -2)}${String(n).padStart(2, '0')}`),
  );
  return path;
}

describe('the Stop hook without serve', () => {
  it('starts no indexer while one runs: that one reads every request the hooks left', async () => {
    const env = { WATCHKEEPER_EMBEDDINGS: 'off', HOME: join(root, 'home') };
    const { run, dataDir } = cliIn(join(root, 'data'), undefined, env);
    // An indexer is running (another process holds the lock).
    expect(claimIndexerLock(dataDir, { pid: indexer.pid! })).toBe(true);
    const files = [1, 2, 3, 4, 5].map(transcript);
    for (const f of files)
      expect(await run(['graph', 'hook', 'stop'], stop(f))).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
    expect(hasRequests(dataDir)).toBe(true);
    // A private file outside the folders of transcripts, asked for by a hook too.
    const secret = join(root, 'private.jsonl');
    writeFileSync(secret, readFileSync(files[0]!), { mode: 0o600 });
    expect((await run(['graph', 'hook', 'stop'], stop(secret))).code).toBe(0);
    // The running indexer is done; the next one (as the last hook would start it) reads them all.
    releaseIndexerLock(dataDir, indexer.pid);
    expect(await run(['graph', 'index', '--from-hook'])).toMatchObject({ code: 0, stdout: '' });
    expect(hasRequests(dataDir)).toBe(false);
    const log = readFileSync(join(dataDir, 'graph-hook.log'), 'utf8');
    for (const f of files) expect(log).toContain(`${f}: indexed`);
    expect(log).toContain(`refused: ${secret}`);
    const stats = JSON.parse((await run(['graph', 'stats', '--json'])).stdout) as {
      sessions: number;
    };
    expect(stats.sessions).toBe(5);
    // It let go of the lock.
    expect(claimIndexerLock(dataDir)).toBe(true);
    releaseIndexerLock(dataDir);
  });

  it('takes over a lock whose pid now names another process', () => {
    const dataDir = join(root, 'data');
    makeDir(join(dataDir, 'graph-hook'));
    // This test's pid, with another start time: the indexer that held it is gone.
    writeFileSync(
      join(dataDir, 'graph-hook', 'indexer.lock'),
      JSON.stringify({ pid: process.pid, start: '1' }),
    );
    expect(claimIndexerLock(dataDir, { pid: process.ppid })).toBe(true);
    expect(claimIndexerLock(dataDir)).toBe(false);
    releaseIndexerLock(dataDir, process.ppid);
  });

  it('fails at once on a data folder the system will not create', async () => {
    expect(() => makeDir('/proc/watchkeeper-data/graph-hook')).toThrow(
      /cannot create the folder \/proc\/watchkeeper-data: ENOENT/,
    );
    const { run } = cliIn('/proc/watchkeeper-data', undefined, { WATCHKEEPER_EMBEDDINGS: 'off' });
    expect(await run(['graph', 'hook', 'stop'], stop(join(projects, 'x.jsonl')))).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    const out = await run(['graph', 'index', '--from-hook']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('cannot create the folder /proc/watchkeeper-data');
    expect(existsSync('/proc/watchkeeper-data')).toBe(false);
    expect((await run(['graph', 'stats'])).stderr).toContain('cannot create the folder');
  });
});

describe('requests', () => {
  it('keeps one request per transcript: the later turn wins', async () => {
    const { run, dataDir } = cliIn(join(root, 'data'), undefined, { HOME: join(root, 'home') });
    expect(claimIndexerLock(dataDir, { pid: indexer.pid! })).toBe(true);
    const f = transcript(1);
    await run(['graph', 'hook', 'stop'], stop(f, 'first'));
    await run(['graph', 'hook', 'stop'], stop(f, 'second'));
    const dir = join(dataDir, 'graph-hook', 'requests');
    const names = readdirSync(dir);
    expect(names).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, names[0]!), 'utf8'))).toEqual({
      transcriptPath: f,
      untilText: 'second',
    });
    releaseIndexerLock(dataDir, indexer.pid);
  });
});
