/**
 * `watchkeeper mcp` as Claude Code starts it: from whatever folder a session runs in. The
 * README's absolute-path form answers from any folder, and with no data folder set the server
 * opens the package's own ./data (where `npm start` keeps it), never a new ./data where it was
 * started. Needs dist/.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';

import { REPO } from '../helpers/mcp.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function temp(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `watchkeeper-${name}-`));
  dirs.push(dir);
  return dir;
}

/** Starts `command args` in `cwd` and completes the MCP handshake; returns the server's name. */
async function initialize(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string | undefined> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', WATCHKEEPER_EMBEDDINGS: 'off', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'watchkeeper-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    await client.listTools();
    return client.getServerVersion()?.name;
  } finally {
    await client.close();
  }
}

describe('watchkeeper mcp started from another folder', () => {
  it("answers initialize through the README's absolute-path form", async () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const line = /^claude mcp add watchkeeper -- (node \/path\/to\/watchkeeper\/\S+ mcp)$/m.exec(
      readme,
    );
    expect(line).not.toBeNull();
    const [command, ...args] = line![1]!.replace('/path/to/watchkeeper/', REPO).split(' ') as [
      string,
      ...string[],
    ];
    const cwd = temp('elsewhere');
    const dataDir = temp('mcp-data');
    expect(await initialize(command, args, cwd, { WATCHKEEPER_DATA_DIR: dataDir })).toBe(
      'watchkeeper',
    );
    expect(existsSync(join(dataDir, 'watchkeeper.db'))).toBe(true);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('with no data folder set, opens the package’s ./data, not one where it started', async () => {
    // A copy of the package, so that its ./data is the test's own.
    const pkg = temp('package');
    for (const part of ['package.json', 'bin', 'migrations'])
      cpSync(join(REPO, part), join(pkg, part), { recursive: true });
    cpSync(join(REPO, 'dist'), join(pkg, 'dist'), {
      recursive: true,
      filter: (src) => !src.endsWith('.map'),
    });
    symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
    const cwd = temp('elsewhere');
    mkdirSync(join(cwd, 'project'));
    const started = join(cwd, 'project');
    expect(
      await initialize(process.execPath, [join(pkg, 'bin/watchkeeper.js'), 'mcp'], started),
    ).toBe('watchkeeper');
    expect(existsSync(join(started, 'data'))).toBe(false);
    expect(existsSync(join(pkg, 'data', 'watchkeeper.db'))).toBe(true);
  });
});
