/**
 * A Claude Ops user swaps the image and keeps their compose file and .env: every name the Go
 * project's .env.example and compose environment hold loads or is refused with its replacement,
 * the old state folder is found, the first run starts with serve, and a missing prompt file stops
 * start-up naming the setting and the path.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { claudeOpsDatabaseHint } from '../../src/cli/claudeops-database.js';
import { checkPromptFiles, loadConfig } from '../../src/config/index.js';

const FIXTURES = new URL('../fixtures/claudeops/', import.meta.url);

/** Every `NAME=value` of a fixture, the examples commented out as `# NAME=value` included. */
function namesIn(file: string): [string, string][] {
  const text = readFileSync(new URL(file, FIXTURES), 'utf8');
  return [...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]);
}

/** A value a Claude Ops user would give a name, where its example is empty. */
const GIVEN: Record<string, string> = {
  ANTHROPIC_API_KEY: 'sk-ant-test',
  ANTHROPIC_BASE_URL: 'https://litellm.example.com',
  CLAUDEOPS_DISALLOWED_TOOLS: 'Bash(rm:*)',
  CLAUDEOPS_APPRISE_URLS: 'ntfy://ntfy.sh/ops',
  CLAUDEOPS_BROWSER_ALLOWED_ORIGINS: 'https://sonarr.example',
  CLAUDEOPS_PR_ENABLED: 'true',
  CLAUDEOPS_CHAT_API_KEY: 'a-chat-key-of-24-chars!!',
};

describe('every name in the Go .env.example and compose environment', () => {
  it.each(['env.example', 'compose.env'])(
    '%s: each loads, or is refused with its replacement',
    (file) => {
      const names = namesIn(file);
      expect(names.length).toBeGreaterThan(10);
      for (const [name, example] of names) {
        const value = GIVEN[name] ?? (example || 'x');
        let message = '';
        try {
          loadConfig({ [name]: value });
        } catch (err) {
          message = (err as Error).message;
        }
        if (message) {
          expect(message, name).toMatch(
            new RegExp(`^${name} is a Claude Ops setting watchkeeper does not have: \\S.{20,}`),
          );
          expect(message, name).not.toMatch(/did you mean/);
        }
      }
    },
  );

  it('refuses CLAUDEOPS_TIER, naming where the start tier is chosen now', () => {
    expect(() => loadConfig({ CLAUDEOPS_TIER: '1' })).toThrow(
      /^CLAUDEOPS_TIER is a Claude Ops setting watchkeeper does not have: the tier a run starts at is chosen per run: `watchkeeper run --tier N`, `start_tier`/,
    );
    expect(() => loadConfig({ CLAUDEOPS_TIER: '1' })).not.toThrow(/did you mean/);
  });
});

describe('the data folder in the image', () => {
  const IMAGE = { WATCHKEEPER_DEFAULT_DATA_DIR: '/data' };

  it("is the image's default only: CLAUDEOPS_STATE_DIR and WATCHKEEPER_DATA_DIR win", () => {
    expect(loadConfig(IMAGE).dataDir).toBe('/data');
    expect(loadConfig({ ...IMAGE, CLAUDEOPS_STATE_DIR: '/state' }).dbPath).toBe(
      '/state/watchkeeper.db',
    );
    expect(loadConfig({ ...IMAGE, WATCHKEEPER_DATA_DIR: '/srv/wk' }).dataDir).toBe('/srv/wk');
  });

  it("is the first of the image's folders that exists: a mounted Claude Ops state folder", () => {
    const state = mkdtempSync(join(tmpdir(), 'watchkeeper-state-'));
    const missing = join(state, 'not-mounted');
    const list = (...dirs: string[]) => ({ WATCHKEEPER_DEFAULT_DATA_DIR: dirs.join(',') });
    expect(loadConfig(list(state, '/data')).dataDir).toBe(state);
    expect(loadConfig(list(missing, '/data')).dataDir).toBe('/data');
  });

  it('offers the Claude Ops database for import, in the data folder or at /state', () => {
    const at =
      (...paths: string[]) =>
      (p: string) =>
        paths.includes(p);
    const state = loadConfig({ ...IMAGE, CLAUDEOPS_STATE_DIR: '/state' });
    expect(claudeOpsDatabaseHint(state, at('/state/claudeops.db'))).toBe(
      'a Claude Ops database is in the data folder: `watchkeeper import-claudeops /state/claudeops.db` imports its history',
    );
    expect(claudeOpsDatabaseHint(loadConfig(IMAGE), at('/state/claudeops.db'))).toMatch(
      /^a Claude Ops database is at \/state\/claudeops.db, outside the data folder \/data: `watchkeeper import-claudeops \/state\/claudeops.db` imports its history \(or set CLAUDEOPS_STATE_DIR=\/state/,
    );
    // A data folder the operator chose is theirs: no guessing at /state.
    const chosen = loadConfig({ WATCHKEEPER_DATA_DIR: '/srv/wk' });
    expect(claudeOpsDatabaseHint(chosen, at('/state/claudeops.db'))).toBeNull();
  });
});

describe('the first run at start-up', () => {
  it('starts with serve when CLAUDEOPS_INTERVAL set the schedule, as in Claude Ops', () => {
    expect(loadConfig({ CLAUDEOPS_INTERVAL: '900' }).runner.runAtStart).toBe(true);
    expect(loadConfig({}).runner.runAtStart).toBe(false);
    expect(loadConfig({ WATCHKEEPER_SCHEDULE: '*/15 * * * *' }).runner.runAtStart).toBe(false);
  });

  it('is WATCHKEEPER_RUN_AT_START for everyone', () => {
    const off = { CLAUDEOPS_INTERVAL: '900', WATCHKEEPER_RUN_AT_START: 'false' };
    expect(loadConfig(off).runner.runAtStart).toBe(false);
    expect(loadConfig({ WATCHKEEPER_RUN_AT_START: 'true' }).runner.runAtStart).toBe(true);
  });
});

describe('tier prompt files', () => {
  it("the Go compose file's relative paths are found from the working folder (the image's /app)", () => {
    const env = { CLAUDEOPS_TIER2_PROMPT: 'prompts/tier2-investigate.md' };
    expect(() => checkPromptFiles(loadConfig(env))).not.toThrow();
  });

  it('a missing one is refused naming the setting and the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-prompts-'));
    const there = join(dir, 'observe.md');
    writeFileSync(there, 'look around');
    expect(() => checkPromptFiles(loadConfig({ CLAUDEOPS_PROMPT: there }))).not.toThrow();
    const missing = join(dir, 'nope.md');
    expect(() => checkPromptFiles(loadConfig({ CLAUDEOPS_PROMPT: missing }))).toThrow(
      `CLAUDEOPS_PROMPT: the tier 1 prompt file ${missing} does not exist`,
    );
    expect(() =>
      checkPromptFiles(loadConfig({ WATCHKEEPER_TIER3_PROMPT: join(dir, 'gone.md') })),
    ).toThrow(/^WATCHKEEPER_TIER3_PROMPT: the tier 3 prompt file .*gone\.md does not exist/);
  });
});
