/**
 * The memory graph in a running `serve` (the demo: the real CLI against the simulated model):
 * each session's log is indexed when the session ends, with no page viewed; serve leaves its
 * endpoint in the data folder (0600) for the plugin's Stop hook, which hands a transcript to it
 * instead of starting an indexer; once serve has stopped the file is gone and the hook indexes
 * on its own (detached), as before. (On PostgreSQL: graph-serve-postgres.test.ts.) Needs dist/.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

import { ENDPOINT_FILE } from '../../src/cli/serve-endpoint.js';
import { type DemoServe, startDemoServe } from '../helpers/demo-serve.js';
import { fixtureCopy, SESSION } from '../helpers/graph.js';

const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));

let serve: DemoServe | undefined;
let copy: ReturnType<typeof fixtureCopy> | undefined;
afterEach(() => {
  serve?.cleanUp();
  serve = undefined;
  if (copy) rmSync(copy.dir, { recursive: true, force: true });
  copy = undefined;
});

/** The conversations the graph holds (read-only, beside the running serve). */
function graphSessions(dbPath: string): string[] {
  if (!existsSync(dbPath)) return [];
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (
      db.prepare('SELECT session FROM graph_sessions ORDER BY session').all() as {
        session: string;
      }[]
    ).map((r) => r.session);
  } catch {
    return []; // not migrated yet
  } finally {
    db.close();
  }
}

/** The plugin's Stop hook as Claude Code runs it: a process, the hook JSON on stdin. */
function stopHook(dataDir: string, transcript: string, roots: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'graph', 'hook', 'stop'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        WATCHKEEPER_DATA_DIR: dataDir,
        WATCHKEEPER_EMBEDDINGS: 'off',
        WATCHKEEPER_GRAPH_ROOTS: roots,
      },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', reject);
    child.on('close', resolve);
    child.stdin.end(
      JSON.stringify({
        hook_event_name: 'Stop',
        transcript_path: transcript,
        // Both fixture transcripts end with a message that names Immich.
        last_assistant_message: 'Immich',
      }),
    );
  });
}

describe('the memory graph in serve', () => {
  it("indexes each ended session's log, and takes the Stop hook's transcripts while it runs", async () => {
    // The transcripts the hook hands on are in a folder of transcripts for serve and the hook.
    copy = fixtureCopy();
    const demo = (serve = startDemoServe({
      WATCHKEEPER_EMBEDDINGS: 'off',
      WATCHKEEPER_LOG_LEVEL: 'debug',
      WATCHKEEPER_GRAPH_ROOTS: copy.dir,
    }));
    const endpoint = join(demo.dataDir, ENDPOINT_FILE);
    // The demo's start-up chain is three sessions.
    await demo.until(() => graphSessions(demo.dbPath).length >= 3);
    // No page was viewed: serve queued each log as its session ended.
    expect(graphSessions(demo.dbPath)).toEqual(['wk-1', 'wk-2', 'wk-3']);

    expect(statSync(endpoint).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(endpoint, 'utf8'))).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      token: null,
      nonce: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await stopHook(demo.dataDir, copy.main, copy.dir)).toBe(0);
    await demo.until(() => graphSessions(demo.dbPath).includes(SESSION));
    expect(graphSessions(demo.dbPath)).toContain(SESSION);
    // Indexed by serve (its log says so), not by an indexer the hook started (that one logs here).
    // The log line follows the commit that made the session visible: wait for it too.
    await demo.until(() => demo.log().includes(copy!.main));
    expect(demo.log()).toMatch(/graph: indexed/);
    expect(demo.log()).toContain(copy.main);
    expect(existsSync(join(demo.dataDir, 'graph-hook.log'))).toBe(false);
    // Nothing outside the folders of transcripts, even a transcript of serve's own user.
    const outside = join(demo.dataDir, 'elsewhere.jsonl');
    writeFileSync(outside, readFileSync(copy.subagent), { mode: 0o600 });
    expect(await stopHook(demo.dataDir, outside, copy.dir)).toBe(0);

    expect(await demo.stop()).toBe(0);
    expect(existsSync(endpoint)).toBe(false);
    // No serve: the hook starts its own indexer, which logs to the data folder.
    expect(await stopHook(demo.dataDir, copy.subagent, copy.dir)).toBe(0);
    const agent = `${SESSION}/agent-a1b2c3d4e5f6a7b8c`;
    await demo.until(() => graphSessions(demo.dbPath).includes(agent));
    expect(graphSessions(demo.dbPath)).toContain(agent);
    await demo.until(() => existsSync(join(demo.dataDir, 'graph-hook.log')));
    const hookLog = () => readFileSync(join(demo.dataDir, 'graph-hook.log'), 'utf8');
    await demo.until(() => hookLog().includes(copy!.subagent));
    expect(hookLog()).toContain(`${copy.subagent}: indexed`);
    // The request serve refused was left for the hook's indexer, which refused it too.
    expect(hookLog()).toContain(`refused: ${outside}`);
    expect(graphSessions(demo.dbPath)).not.toContain('elsewhere');
  }, 180_000);
});
