/**
 * The image a Claude Ops user swaps in (no docker here: the Dockerfile and compose file are read):
 * the tools the Go image had, apprise for CLAUDEOPS_APPRISE_URLS, a data folder that is only a
 * default, a dashboard on every interface, and the port published as the Go compose file did.
 */
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { loadConfig } from '../src/config/index.js';

const read = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');

/** The runtime stage: everything after the last FROM, continuation lines joined. */
function runtimeStage(): string {
  const text = read('Dockerfile').replace(/\\\n/g, ' ');
  return text.slice(text.lastIndexOf('\nFROM '));
}

/** The runtime stage's ENV settings. */
function imageEnv(stage: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of stage.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const m of line.matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]!] = m[2]!;
  }
  return env;
}

describe('the Dockerfile', () => {
  const stage = runtimeStage();

  it('installs the Claude Ops tools and apprise from Debian', () => {
    const install = /apt-get install -y --no-install-recommends ([^&]+)&&/.exec(stage)?.[1] ?? '';
    const packages = install.trim().split(/\s+/);
    for (const p of ['apprise', 'git', 'gh', 'python3', 'openssh-client', 'curl', 'jq']) {
      expect(packages, p).toContain(p);
    }
  });

  it('gives the data folder as a default Claude Ops settings override, and listens everywhere', () => {
    const env = imageEnv(stage);
    expect(env).toMatchObject({
      WATCHKEEPER_DEFAULT_DATA_DIR: '/state,/data',
      WATCHKEEPER_HOST: '0.0.0.0',
    });
    expect(env.WATCHKEEPER_DATA_DIR).toBeUndefined();
    expect(env.WATCHKEEPER_PORT).toBeUndefined();
    // A Claude Ops compose environment on top of the image's.
    const config = loadConfig({
      ...env,
      CLAUDEOPS_STATE_DIR: '/state',
      CLAUDEOPS_DASHBOARD_PORT: '9090',
    });
    expect(config.dataDir).toBe('/state');
    expect(config.web).toMatchObject({ host: '0.0.0.0', port: 9090 });
    // With neither set: /state where a Claude Ops volume is mounted (not here), else /data.
    expect(loadConfig(env).dataDir).toBe('/data');
  });
});

describe('docker-compose.yml', () => {
  it('publishes the port as the Claude Ops compose file did, and sets no data folder', () => {
    const compose = read('docker-compose.yml');
    expect(compose).toMatch(/ports:\n\s+- '8080:8080'/);
    expect(compose).not.toMatch(/^\s+WATCHKEEPER_DATA_DIR:/m);
  });
});
