/**
 * Notifications driven end to end through the real runner and the fixture CLI: a session that
 * reports a critical event and then crashes, and a chain that escalates, reach a JSON webhook on
 * loopback; the cooldown guard's refusal is recorded by the hook's own process and delivered by
 * the serving one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/log.js';
import { buildTargets, createNotifier, recordTrigger } from '../../src/notify/index.js';
import { createChainRunner } from '../../src/runner/chain.js';
import { decidePreToolUse } from '../../src/runner/pre-tool-use.js';
import type { RunnerAlert } from '../../src/runner/alerts.js';
import { cooldownRow } from '../helpers/db.js';
import { httpReceiver, type HttpReceiver } from '../helpers/notify.js';
import { type RunnerHarness, runnerHarness } from '../helpers/runner.js';

let h: RunnerHarness | undefined;
let rx: HttpReceiver | undefined;
let promptDir: string | undefined;
afterEach(async () => {
  await h?.close();
  await rx?.close();
  if (promptDir) rmSync(promptDir, { recursive: true, force: true });
  h = undefined;
  rx = undefined;
  promptDir = undefined;
});

function notifierOver(harness: RunnerHarness, url: string) {
  return createNotifier({
    store: harness.stores.notifications,
    targets: buildTargets({ notifyUrls: [url], appriseUrls: [], appriseAvailable: false }),
    settings: harness.config.notifications,
    clock: systemClock,
    log: silentLogger,
    appriseBin: null,
    env: {},
  });
}

const messages = (r: HttpReceiver) =>
  r.requests.map((q) => q.json as { title: string; message: string; type: string });

describe('notifications from the runner', () => {
  it('a critical event and the crash that follows reach the webhook, each once', async () => {
    rx = await httpReceiver();
    let notify: (a: RunnerAlert) => void = () => {};
    h = runnerHarness({}, { onAlert: (a) => notify(a) });
    const notifier = notifierOver(h, `json+${rx.url}/hook`);
    notify = (a) => void notifier.notify(a);

    const out = await h.runSession({
      trigger: 'manual',
      tier: 1,
      prompt: 'crash',
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    expect(out.status).toBe('failed');
    await notifier.tick();

    const got = messages(rx);
    expect(got.map((m) => m.title).sort()).toEqual([
      'watchkeeper: Critical: nas',
      'watchkeeper: Session failed',
    ]);
    const failed = got.find((m) => m.title.endsWith('Session failed'))!;
    expect(failed.type).toBe('failure');
    expect(failed.message).toContain('fatal: the fake CLI crashed on purpose');
    expect(failed.message).toContain(`Session #${out.sessionId} (tier 1).`);
    expect(
      (await h.stores.notifications.list()).every(
        (n) => n.notification.sessionId === out.sessionId,
      ),
    ).toBe(true);
  });

  it('an escalation notifies when it reaches the chosen tier, and not below it', async () => {
    rx = await httpReceiver();
    // The escalated tiers read their prompt file: the fake CLI's "ok" scenario.
    promptDir = mkdtempSync(join(tmpdir(), 'watchkeeper-prompt-'));
    const okPrompt = join(promptDir, 'ok.md');
    writeFileSync(okPrompt, 'ok');
    let notify: (a: RunnerAlert) => void = () => {};
    h = runnerHarness(
      {
        WATCHKEEPER_NOTIFY_ESCALATION_TIER: '3',
        WATCHKEEPER_TIER2_PROMPT: okPrompt,
        WATCHKEEPER_TIER3_PROMPT: okPrompt,
      },
      { onAlert: (a) => notify(a) },
    );
    const notifier = notifierOver(h, `json+${rx.url}/hook`);
    notify = (a) => void notifier.notify(a);
    const chain = createChainRunner({
      runSession: h.runSession,
      stores: h.stores,
      config: h.config,
      clock: systemClock,
      log: silentLogger,
      onAlert: (a) => notify(a),
    });

    await chain({ trigger: 'manual', startTier: 1, prompt: 'escalate:2', alert: null });
    await notifier.tick();
    expect(rx.requests).toHaveLength(0);

    const out = await chain({ trigger: 'manual', startTier: 1, prompt: 'escalate:3', alert: null });
    await notifier.tick();
    expect(out.sessionIds).toHaveLength(2);
    expect(messages(rx)).toEqual([
      {
        version: '1.0',
        title: 'watchkeeper: Escalated to tier 3',
        message: `lag keeps growing\n\nTier 1 session #${out.sessionIds[0]} asked for tier 3.`,
        type: 'warning',
      },
    ]);
  });

  it('a remediation the cooldown guard refused, recorded by the hook process, is delivered by the serving one', async () => {
    rx = await httpReceiver();
    h = runnerHarness({ WATCHKEEPER_RESTART_LIMIT: '1' });
    const stores = h.stores;
    stores.cooldowns.insert(cooldownRow({ service: 'jellyfin', createdAt: Date.now() }));
    const decision = await decidePreToolUse(
      { tool_name: 'Bash', tool_input: { command: 'docker restart jellyfin' } },
      {
        stores,
        limits: h.config.cooldowns,
        clock: systemClock,
        sessionId: null,
        tier: 3,
        // What `watchkeeper hook pre-tool-use` passes: record only, the targets are not known.
        onAlert: (a) =>
          void recordTrigger(stores.notifications, h!.config.notifications, a, Date.now()),
      },
    );
    expect(decision.exitCode).toBe(2);
    expect((await stores.notifications.list())[0]!.deliveries).toEqual([]);

    await notifierOver(h, `json+${rx.url}/hook`).tick();
    expect(messages(rx)).toMatchObject([
      { title: 'watchkeeper: Blocked restart of jellyfin (cooldown)', type: 'warning' },
    ]);
    expect(messages(rx)[0]!.message).toContain('Command: docker restart jellyfin');
  });

  it('never puts a notification URL in the session: not in argv, the system prompt or the environment', async () => {
    const apprise = 'ntfys://tk_ApprSecret1@ntfy.example.com/topic-secret-2';
    const own = 'gotify://gotify.example.com/GotifySecret3';
    h = runnerHarness(
      { CLAUDEOPS_APPRISE_URLS: apprise, WATCHKEEPER_NOTIFY_URLS: own },
      {
        parentEnv: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: tmpdir(),
          CLAUDEOPS_APPRISE_URLS: apprise,
          WATCHKEEPER_NOTIFY_URLS: own,
        },
      },
    );
    const out = await h.runSession({
      trigger: 'manual',
      tier: 1,
      prompt: 'ok',
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    expect(out.status).toBe('completed');
    const seen = readFileSync(join(h.dataDir, 'fake-claude', `${out.sessionId}.json`), 'utf8');
    expect(seen).toContain('--append-system-prompt-file');
    for (const secret of ['ApprSecret1', 'topic-secret-2', 'GotifySecret3']) {
      expect(seen).not.toContain(secret);
    }
  });
});
