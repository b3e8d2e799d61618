/**
 * What the composition root does with the notification settings at start-up: Apprise URLs go
 * through the `apprise` command when it is on PATH (a fake one here: a seam), are delivered built
 * in otherwise, and one that cannot be delivered stops start-up instead of being dropped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createRuntime, type Runtime } from '../../src/cli/runtime.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { fakeClock } from '../helpers/clock.js';
import { fakeApprise, type FakeApprise } from '../helpers/notify.js';

let dir: string | undefined;
let rt: Runtime | undefined;
let apprise: FakeApprise | undefined;
afterEach(async () => {
  await rt?.close();
  apprise?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  rt = undefined;
  apprise = undefined;
  dir = undefined;
});

function runtime(env: Record<string, string>): Runtime {
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-notify-start-'));
  const all = { WATCHKEEPER_DATA_DIR: dir, WATCHKEEPER_EMBEDDINGS: 'off', ...env };
  return createRuntime({
    config: loadConfig(all),
    clock: fakeClock(),
    log: silentLogger,
    env: all,
  });
}

describe('notification targets at start-up', () => {
  it('refuses an Apprise URL of a scheme it cannot deliver when apprise is not installed', () => {
    expect(() =>
      runtime({ CLAUDEOPS_APPRISE_URLS: 'pover://user@SecretToken42', PATH: '/nonexistent' }),
    ).toThrow(/URL 1 of 1 \(pover:\/\/\).*apprise command is not installed/);
  });

  it('hands every Apprise URL to the apprise command when it is on PATH', () => {
    apprise = fakeApprise();
    rt = runtime({
      CLAUDEOPS_APPRISE_URLS: 'pover://user@SecretToken42',
      WATCHKEEPER_NOTIFY_URLS: 'ntfys://ntfy.example.com/ops',
      PATH: apprise.path,
    });
    expect(rt.notifier.targets()).toEqual([
      {
        key: 'ntfys://ntfy.example.com/***',
        label: 'ntfys://ntfy.example.com/***',
        kind: 'ntfy',
        via: 'built-in',
        setting: 'WATCHKEEPER_NOTIFY_URLS',
      },
      {
        key: 'pover://***@***',
        label: 'pover://***@***',
        kind: 'apprise',
        via: 'apprise',
        setting: 'WATCHKEEPER_APPRISE_URLS',
      },
    ]);
  });
});
