/** The folders of transcripts: Claude Code's projects folder and WATCHKEEPER_GRAPH_ROOTS. */
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';

describe('the folders of transcripts', () => {
  it("finds Claude Code's projects folder and reads WATCHKEEPER_GRAPH_ROOTS", () => {
    expect(loadConfig({ HOME: '/home/u' }).graph).toEqual({
      claudeProjectsDir: '/home/u/.claude/projects',
      roots: [],
    });
    expect(
      loadConfig({
        HOME: '/home/u',
        CLAUDE_CONFIG_DIR: '/etc/claude',
        WATCHKEEPER_GRAPH_ROOTS: '/srv/transcripts, /data/logs/',
      }).graph,
    ).toEqual({
      claudeProjectsDir: '/etc/claude/projects',
      roots: ['/srv/transcripts', '/data/logs'],
    });
    expect(loadConfig({}).graph.claudeProjectsDir).toBeNull();
  });

  it('refuses a relative folder, naming the variable', () => {
    expect(() => loadConfig({ WATCHKEEPER_GRAPH_ROOTS: '/srv/a,transcripts' })).toThrow(
      /WATCHKEEPER_GRAPH_ROOTS="\/srv\/a,transcripts": expected absolute folder paths/,
    );
  });
});
