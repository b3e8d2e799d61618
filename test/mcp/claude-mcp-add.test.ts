/**
 * The README's `claude mcp add watchkeeper -- npx watchkeeper mcp`: Claude Code would start the
 * server as `npx watchkeeper mcp`, so the test does exactly that (from the repository root,
 * where npx resolves the package's own bin; offline, so nothing can be downloaded) and asks it
 * for its tools over stdio.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { connectMcp, REPO } from '../helpers/mcp.js';

describe('npx watchkeeper mcp', () => {
  it('is the command the README tells Claude Code to run', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    expect(readme).toContain('claude mcp add watchkeeper -- npx watchkeeper mcp');
  });

  it('answers tools/list with the four memory tools', async () => {
    // npx links the package into a cache of its own here, and, dist/ being built by `npm test`,
    // runs no install script: linking runs `prepare`, a whole build that rewrites dist/ while
    // other tests run it.
    const cache = mkdtempSync(join(tmpdir(), 'watchkeeper-npx-'));
    const mcp = await connectMcp({
      command: 'npx',
      args: ['watchkeeper', 'mcp'],
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        npm_config_offline: 'true',
        npm_config_cache: cache,
        npm_config_ignore_scripts: 'true',
        npm_config_update_notifier: 'false',
      },
    }).catch((err: unknown) => {
      rmSync(cache, { recursive: true, force: true });
      throw err;
    });
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'memory_add',
        'memory_query',
        'memory_reinforce',
        'memory_verify',
      ]);
      expect(mcp.client.getServerVersion()).toMatchObject({ name: 'watchkeeper' });
    } finally {
      await mcp.close();
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
