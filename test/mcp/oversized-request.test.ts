/**
 * The real `watchkeeper mcp` process (bin/watchkeeper.js, so dist/ must be built) fed raw lines on
 * stdin: a request over the transport's limit, a line that is not JSON and one that is not
 * JSON-RPC each get a JSON-RPC error, one log line each, and the server goes on answering.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { MAX_REQUEST_BYTES } from '../../src/mcp/index.js';
import { BIN, REPO } from '../helpers/mcp.js';

interface Answer {
  id: string | number | null;
  result?: { tools?: { name: string }[] };
  error?: { code: number; message: string };
}

let child: ChildProcessWithoutNullStreams | undefined;
let dataDir: string | undefined;
afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  child = undefined;
  dataDir = undefined;
});

/** The server on stdio: `send` writes raw text, `next` resolves with the next answer line. */
function startServer() {
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-mcp-raw-'));
  const proc = spawn(process.execPath, [BIN, 'mcp'], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH,
      WATCHKEEPER_DATA_DIR: dataDir,
      WATCHKEEPER_EMBEDDINGS: 'off',
      WATCHKEEPER_LOG_LEVEL: 'info',
    },
  });
  child = proc;
  let stderr = '';
  let buffered = '';
  const answers: Answer[] = [];
  const waiting: ((a: Answer | null) => void)[] = [];
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  // A server that went away is seen as answers that never come, not as a write error.
  proc.stdin.on('error', () => {});
  proc.stdout.on('data', (d: Buffer) => {
    buffered += d.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const answer = JSON.parse(buffered.slice(0, nl)) as Answer;
      buffered = buffered.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(answer);
      else answers.push(answer);
    }
  });
  // A server that exits answers nothing more: every wait then ends with null.
  proc.on('exit', () => {
    for (const w of waiting.splice(0)) w(null);
  });
  return {
    send: (text: string) => proc.stdin.write(text),
    next: (): Promise<Answer | null> =>
      answers.length > 0
        ? Promise.resolve(answers.shift()!)
        : proc.exitCode !== null
          ? Promise.resolve(null)
          : new Promise((resolve) => waiting.push(resolve)),
    stderr: () => stderr,
    end: () =>
      new Promise<number | null>((resolve) => {
        proc.on('exit', (code) => resolve(code));
        proc.stdin.end();
      }),
  };
}

const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;

describe('watchkeeper mcp on raw stdio', () => {
  it('answers a request over the limit with a JSON-RPC error and keeps serving', async () => {
    const server = startServer();
    server.send(
      request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      }),
    );
    expect((await server.next())?.id).toBe(1);
    server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

    // 11 MB, sent in pieces as a client's pipe would deliver it.
    const huge = request(2, 'tools/call', {
      name: 'memory_query',
      arguments: { query: 'x'.repeat(11 * 1024 * 1024) },
    });
    for (let at = 0; at < huge.length; at += 1024 * 1024) {
      server.send(huge.slice(at, at + 1024 * 1024));
    }
    const refused = await server.next();
    expect(refused).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(refused!.error!.message).toContain(`over the limit of ${MAX_REQUEST_BYTES} bytes`);

    server.send(request(3, 'tools/list'));
    const listed = await server.next();
    expect(listed?.id).toBe(3);
    expect(listed?.result?.tools?.map((t) => t.name).sort()).toEqual([
      'memory_add',
      'memory_query',
      'memory_reinforce',
      'memory_verify',
    ]);

    server.send('this is not json\n');
    expect(await server.next()).toMatchObject({ id: null, error: { code: -32700 } });
    server.send('{"jsonrpc":"1.0","id":7,"method":"tools/list"}\n');
    expect(await server.next()).toMatchObject({ id: 7, error: { code: -32600 } });

    server.send(request(4, 'tools/call', { name: 'memory_query', arguments: { query: 'disk' } }));
    const queried = await server.next();
    expect(queried?.id).toBe(4);
    expect(queried?.error).toBeUndefined();

    expect(await server.end()).toBe(0);
    const oversized = server
      .stderr()
      .split('\n')
      .filter((l) => l.includes('over the size limit'));
    expect(oversized).toHaveLength(1);
    expect(oversized[0]).toContain(String(huge.length - 1));
  });
});
