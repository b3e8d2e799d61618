/**
 * A Claude Ops (Go sidecar) environment works unchanged: its .env.example and its compose file's
 * environment load with the same meaning, and a setting watchkeeper cannot honour stops start-up
 * naming what to use instead.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import { intervalSchedule, loadConfig } from '../../src/config/index.js';
import { DAY_MS } from '../../src/clock.js';

const FIXTURES = new URL('../fixtures/claudeops/', import.meta.url);

/** `KEY=VALUE` lines; with `documented`, also the examples commented out as `# KEY=VALUE`. */
function envFile(name: string, documented = false): Record<string, string> {
  const out: Record<string, string> = {};
  const line = documented ? /^#?\s*([A-Z][A-Z0-9_]*)=(.*)$/ : /^([A-Z][A-Z0-9_]*)=(.*)$/;
  for (const text of readFileSync(new URL(name, FIXTURES), 'utf8').split('\n')) {
    const m = line.exec(text.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

const TIER1_GO_DISALLOWED =
  'Bash(docker restart:*),Bash(docker stop:*),Bash(docker start:*),Bash(docker rm:*),' +
  'Bash(docker compose:*),Bash(ansible:*),Bash(ansible-playbook:*),Bash(helm:*),' +
  'Bash(gh pr create:*),Bash(gh pr merge:*),Bash(tea pr create:*),Bash(git push:*),' +
  'Bash(git commit:*),Bash(systemctl restart:*),Bash(systemctl stop:*),Bash(systemctl start:*),' +
  'Bash(apprise:*)';

describe('the Go sidecar .env.example', () => {
  it('loads its settings with the same meaning', () => {
    const env = envFile('env.example');
    expect(env).toEqual({
      ANTHROPIC_API_KEY: '',
      CLAUDEOPS_INTERVAL: '900',
      CLAUDEOPS_DRY_RUN: 'true',
    });
    const config = loadConfig(env);
    // 900 seconds between runs: every 15 minutes.
    expect(config.runner.schedule).toBe('*/15 * * * *');
    expect(config.runner.dryRun).toBe(true);
    expect(config.modelCredentialConfigured).toBe(false);
    expect(config.notices.join('\n')).toMatch(
      /CLAUDEOPS_INTERVAL=900 runs on the schedule "\*\/15 \* \* \* \*"/,
    );
  });

  it('loads every setting it documents, at its example value, except the JSON schema path', () => {
    const { CLAUDEOPS_SCHEMA_PATH: schemaPath, ...env } = envFile('env.example', true);
    expect(schemaPath).toBe('/app/schemas/agent-response.json');
    const config = loadConfig({ ...env, ANTHROPIC_API_KEY: 'sk-test' });
    const { tiers } = config.runner;
    expect([tiers[1].model, tiers[2].model, tiers[3].model]).toEqual(['haiku', 'sonnet', 'opus']);
    expect(config.runner.maxTier).toBe(3);
    expect(tiers[2].promptFile).toBe(resolve('prompts/tier2-investigate.md'));
    expect(tiers[3].promptFile).toBe(resolve('prompts/tier3-remediate.md'));
    // Empty lists ask for nothing: the Go defaults stay.
    expect(tiers[1].disallowedTools).toBe(TIER1_GO_DISALLOWED);
    expect(config.notifications.appriseUrls).toEqual([]);
    expect(config.gateway.models.summary).toBe('haiku');
    expect(config.web.authToken).toBeNull();
  });

  it('refuses the JSON schema path, naming what replaces it', () => {
    expect(() => loadConfig({ CLAUDEOPS_SCHEMA_PATH: '/app/schemas/agent-response.json' })).toThrow(
      /CLAUDEOPS_SCHEMA_PATH is a Claude Ops setting watchkeeper does not have: watchkeeper reads the agent's markers .*WATCHKEEPER_TIER\{1,2,3\}_PROMPT/,
    );
  });
});

describe('the Go sidecar compose environment', () => {
  it('loads with its defaults, switches that ask for nothing included', () => {
    const config = loadConfig(envFile('compose.env'));
    expect(config.runner.schedule).toBe('0 * * * *');
    expect(config.runner.dryRun).toBe(false);
    expect(config.runner.tiers[1].disallowedTools).toBe(TIER1_GO_DISALLOWED);
  });

  it('refuses a switch that asks for what watchkeeper lacks', () => {
    expect(() => loadConfig({ ...envFile('compose.env'), CLAUDEOPS_PR_ENABLED: 'true' })).toThrow(
      /CLAUDEOPS_PR_ENABLED .*had no effect in Claude Ops either: remove it/,
    );
    expect(() =>
      loadConfig({ CLAUDEOPS_BROWSER_ALLOWED_ORIGINS: 'https://sonarr.example' }),
    ).toThrow(/CLAUDEOPS_BROWSER_ALLOWED_ORIGINS .*WATCHKEEPER_MCP_CONFIG/);
    expect(() => loadConfig({ CLAUDEOPS_RESULTS_DIR: '/results' })).toThrow(
      /CLAUDEOPS_RESULTS_DIR .*set WATCHKEEPER_DATA_DIR \(or CLAUDEOPS_STATE_DIR\) instead/,
    );
    expect(() => loadConfig({ CLAUDEOPS_WEBHOOK_MODEL: 'claude-haiku-4-5-20251001' })).toThrow(
      /CLAUDEOPS_WEBHOOK_MODEL .*POST \/api\/v1\/webhook hands the alert text/,
    );
  });
});

describe('Claude Ops settings under their Go names', () => {
  it('reads each with its Go meaning', () => {
    const config = loadConfig({
      CLAUDEOPS_STATE_DIR: '/srv/state',
      CLAUDEOPS_REPOS_DIR: '/srv/repos',
      CLAUDEOPS_PROMPT: '/srv/prompts/observe.md',
      CLAUDEOPS_DASHBOARD_PORT: '9090',
      CLAUDEOPS_MEMORY_BUDGET: '500',
      CLAUDEOPS_MCP_CONFIG: '/srv/mcp.json',
      CLAUDEOPS_ALLOWED_TOOLS: 'Bash,Read',
      CLAUDEOPS_DISALLOWED_TOOLS: 'Bash(rm:*)',
      CLAUDEOPS_TIER3_DISALLOWED_TOOLS: 'Bash(shutdown:*)',
      CLAUDEOPS_APPRISE_URLS: 'ntfy://ntfy.sh/ops, mailto://user:pass@example.com',
      CLAUDEOPS_SUMMARY_MODEL: 'claude-haiku-4-5-20251001',
      CLAUDEOPS_CHAT_API_KEY: 'a-chat-key-of-24-chars!!',
      CLAUDEOPS_VERBOSE: 'true',
    });
    expect(config.dataDir).toBe('/srv/state');
    expect(config.dbPath).toBe('/srv/state/watchkeeper.db');
    expect(config.runner.workdir).toBe('/srv/repos');
    expect(config.runner.tiers[1].promptFile).toBe('/srv/prompts/observe.md');
    expect(config.web.port).toBe(9090);
    expect(config.memoryBudget).toBe(500);
    expect(config.runner.mcpConfig).toBe('/srv/mcp.json');
    // As in Claude Ops, the global lists are Tier 1's; Tiers 2 and 3 keep their own.
    expect(config.runner.tiers[1].allowedTools).toBe('Bash,Read');
    expect(config.runner.tiers[1].disallowedTools).toBe('Bash(rm:*)');
    expect(config.runner.tiers[2].allowedTools).toBe(
      'Bash,Read,Write,Edit,Grep,Glob,Task,WebFetch,WebSearch',
    );
    expect(config.runner.tiers[3].disallowedTools).toBe('Bash(shutdown:*)');
    expect(config.notifications.appriseUrls).toEqual([
      'ntfy://ntfy.sh/ops',
      'mailto://user:pass@example.com',
    ]);
    expect(config.gateway.models.summary).toBe('claude-haiku-4-5-20251001');
    expect(config.web.authToken).toBe('a-chat-key-of-24-chars!!');
    expect(config.logLevel).toBe('debug');
  });

  it('lets a tier list of its own beat the global one, as Claude Ops does', () => {
    const config = loadConfig({
      CLAUDEOPS_ALLOWED_TOOLS: 'Bash,Read',
      CLAUDEOPS_TIER1_ALLOWED_TOOLS: 'Read',
    });
    expect(config.runner.tiers[1].allowedTools).toBe('Read');
    expect(config.notices).toContain(
      'CLAUDEOPS_ALLOWED_TOOLS is not used: CLAUDEOPS_TIER1_ALLOWED_TOOLS is set too and wins',
    );
  });

  it('says at start-up which name wins when both are set', () => {
    const config = loadConfig({ WATCHKEEPER_DATA_DIR: '/data', CLAUDEOPS_STATE_DIR: '/state' });
    expect(config.dataDir).toBe('/data');
    expect(config.notices).toEqual([
      'CLAUDEOPS_STATE_DIR is not used: WATCHKEEPER_DATA_DIR is set too and wins',
    ]);
  });

  it('never echoes a secret in an error', () => {
    let message = '';
    try {
      loadConfig({ CLAUDEOPS_APPRISE_URLS: 'ntfy://ok/topic,tgram-secret-token-123' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(
      /^CLAUDEOPS_APPRISE_URLS=\(hidden, \d+ characters\): URL 2 of 2 is not an Apprise URL/,
    );
    expect(message).not.toContain('secret-token');
    expect(() => loadConfig({ CLAUDEOPS_CHAT_API_KEY: 'short' })).toThrow(
      /^CLAUDEOPS_CHAT_API_KEY=\(hidden, 5 characters\): must be at least 16 characters/,
    );
  });
});

describe('an unknown CLAUDEOPS_ setting', () => {
  it('stops start-up naming it and the setting it most likely means', () => {
    expect(() => loadConfig({ CLAUDEOPS_INTERVALL: '900' })).toThrow(
      /^CLAUDEOPS_INTERVALL is not a setting watchkeeper or Claude Ops knows: did you mean CLAUDEOPS_INTERVAL\?/,
    );
  });

  it('stops start-up even without a likely meaning, naming every one', () => {
    let data: unknown;
    expect(() => {
      try {
        loadConfig({ CLAUDEOPS_SOMETHING_ELSE_ENTIRELY: '1', CLAUDEOPS_RESULTS_DIR: '/results' });
      } catch (err) {
        data = (err as { data?: unknown }).data;
        throw err;
      }
    }).toThrow(
      /CLAUDEOPS_SOMETHING_ELSE_ENTIRELY is not a setting .*; CLAUDEOPS_RESULTS_DIR is a Claude Ops setting/,
    );
    expect(data).toEqual({ variable: 'CLAUDEOPS_SOMETHING_ELSE_ENTIRELY' });
  });

  it('is accepted when it is a watchkeeper setting under the CLAUDEOPS_ prefix', () => {
    expect(loadConfig({ CLAUDEOPS_SESSION_TIMEOUT: '5m' }).runner.sessionTimeoutMs).toBe(300_000);
  });
});

describe('CLAUDEOPS_INTERVAL as a schedule', () => {
  it.each([
    ['30', '*/30 * * * * *'],
    ['60', '* * * * *'],
    ['900', '*/15 * * * *'],
    ['3600', '0 * * * *'],
    ['21600', '0 */6 * * *'],
    ['86400', '0 0 * * *'],
    ['604800', '0 0 * * 0'],
  ])('%s seconds runs on "%s"', (seconds, schedule) => {
    expect(intervalSchedule(seconds)).toBe(schedule);
    expect(loadConfig({ CLAUDEOPS_INTERVAL: seconds }).runner.schedule).toBe(schedule);
  });

  it('refuses an interval cron cannot keep even, offering the nearest two', () => {
    expect(() => loadConfig({ CLAUDEOPS_INTERVAL: '5400' })).toThrow(
      'CLAUDEOPS_INTERVAL="5400": every 90m has no cron schedule that runs at even intervals; set WATCHKEEPER_SCHEDULE instead, e.g. "0 * * * *" (every 1h) or "0 */2 * * *" (every 2h)',
    );
    expect(() => loadConfig({ CLAUDEOPS_INTERVAL: '45' })).toThrow(
      /every 45s has no cron schedule/,
    );
    expect(() => loadConfig({ CLAUDEOPS_INTERVAL: 'hourly' })).toThrow(
      /CLAUDEOPS_INTERVAL="hourly": expected a whole number of seconds/,
    );
  });

  it('gives way to WATCHKEEPER_SCHEDULE', () => {
    const config = loadConfig({ WATCHKEEPER_SCHEDULE: 'off', CLAUDEOPS_INTERVAL: '900' });
    expect(config.runner.schedule).toBeNull();
    expect(config.notices).toContain(
      'CLAUDEOPS_INTERVAL is not used: WATCHKEEPER_SCHEDULE is set too and wins',
    );
  });
});

describe('WATCHKEEPER_RETENTION', () => {
  it('is off unless set, and takes a duration of a day or more', () => {
    expect(loadConfig({}).retentionMs).toBeNull();
    expect(loadConfig({ WATCHKEEPER_RETENTION: '90d' }).retentionMs).toBe(90 * DAY_MS);
    expect(loadConfig({ CLAUDEOPS_RETENTION: 'off' }).retentionMs).toBeNull();
    expect(() => loadConfig({ WATCHKEEPER_RETENTION: '2h' })).toThrow(
      /WATCHKEEPER_RETENTION="2h": expected a duration of at least 1d/,
    );
  });
});
