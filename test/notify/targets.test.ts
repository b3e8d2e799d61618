import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { AppError } from '../../src/errors.js';
import { buildTargets, redact, redactUrl, secretParts } from '../../src/notify/index.js';

const one = (url: string) =>
  buildTargets({ notifyUrls: [url], appriseUrls: [], appriseAvailable: false })[0]!;

describe('redaction of notification URLs', () => {
  it.each([
    ['ntfys://tk_secrettoken@ntfy.example.com/alerts-7f3k', 'ntfys://***@ntfy.example.com/***'],
    ['gotify://gotify.lan:8080/AbCdEfToken', 'gotify://gotify.lan:8080/***'],
    [
      'mailtos://ops:hunter2pass@smtp.example.com?to=ops@example.com',
      'mailtos://***@smtp.example.com?to=ops@example.com',
    ],
    ['json://hooks.lan/in?key=s3cr3tvalue', 'json://hooks.lan/***?key=***'],
  ])('shows %s as %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('masks the host when it is a token (discord, slack, ntfy.sh topics, unknown Apprise schemes)', () => {
    expect(one('discord://123456789/webhooktokenXYZ').label).toBe('discord://***/***');
    expect(one('slack://T000AAA/B000BBB/xyzSecret').label).toBe('slack://***/***/***');
    expect(one('ntfy://my-private-topic').label).toBe('ntfy://***');
    const apprise = buildTargets({
      notifyUrls: [],
      appriseUrls: ['tgram://123456:ABCbottoken/987654'],
      appriseAvailable: true,
    })[0]!;
    expect(apprise.label).toBe('tgram://***/***');
    expect(apprise.via).toBe('apprise');
  });

  it('masks every secret part wherever a text quotes it, raw or URL-decoded', () => {
    const url = 'ntfys://alice:p%40ss%2Fword@ntfy.example.com/topic-abc';
    const text = `failed for ${url}: user alice, password p@ss/word, topic topic-abc`;
    const out = redact(text, secretParts(url));
    expect(out).not.toContain('p@ss/word');
    expect(out).not.toContain('p%40ss');
    expect(out).not.toContain('topic-abc');
    expect(out).not.toContain('alice');
    expect(out).toContain('***');
  });

  it('masks the Basic authorization a server echoes, in base64 and base64url', () => {
    const url = 'json://alice:p%40ss%2Fword@hooks.example.com/in';
    const pair = Buffer.from('alice:p@ss/word');
    const text = `HTTP 500: authorization: Basic ${pair.toString('base64')} (${pair.toString('base64url')})`;
    expect(redact(text, one(url).secrets)).toBe('HTTP 500: authorization: Basic *** (***)');
  });
});

describe('notification targets', () => {
  it('reads each built-in scheme as its service', () => {
    expect(one('ntfys://ntfy.example.com/alerts').endpoint).toEqual({
      kind: 'ntfy',
      url: 'https://ntfy.example.com/',
      topic: 'alerts',
      headers: {},
    });
    expect(one('ntfy://my-topic').endpoint).toMatchObject({
      url: 'https://ntfy.sh/',
      topic: 'my-topic',
    });
    expect(one('gotifys://push.example.com/sub/TOKEN1').endpoint).toEqual({
      kind: 'gotify',
      url: 'https://push.example.com/sub/message',
      token: 'TOKEN1',
    });
    expect(one('discord://111/tok').endpoint).toMatchObject({
      kind: 'discord',
      url: 'https://discord.com/api/webhooks/111/tok',
    });
    expect(one('slack://TA/TB/TC').endpoint).toMatchObject({
      url: 'https://hooks.slack.com/services/TA/TB/TC',
    });
    expect(one('mmosts://chat.example.com/hooktoken').endpoint).toMatchObject({
      kind: 'mattermost',
      url: 'https://chat.example.com/hooks/hooktoken',
    });
    expect(one('https://hooks.slack.com/services/A/B/C').kind).toBe('slack');
    expect(one('https://discord.com/api/webhooks/1/x').kind).toBe('discord');
    expect(one('https://example.com/any/hook').kind).toBe('json');
    expect(one('mailtos://me:pw@smtp.example.com?to=a@example.com').endpoint).toMatchObject({
      kind: 'email',
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      requireTLS: true,
      auth: { user: 'me', pass: 'pw' },
      to: ['a@example.com'],
      from: 'me@smtp.example.com',
    });
  });

  it('refuses at start-up an Apprise URL it cannot deliver without apprise, naming the setting and the scheme but not the URL', () => {
    const build = () =>
      buildTargets({
        notifyUrls: [],
        appriseUrls: ['ntfy://ok-topic', 'tgram://123:SECRETBOT/42'],
        appriseAvailable: false,
      });
    expect(build).toThrow(AppError);
    expect(build).toThrow(
      /WATCHKEEPER_APPRISE_URLS \(CLAUDEOPS_APPRISE_URLS\): URL 2 of 2 \(tgram:\/\/\).*apprise command is not installed/,
    );
    try {
      build();
    } catch (err) {
      expect((err as Error).message).not.toContain('SECRETBOT');
    }
  });

  it('delivers the Apprise URLs it understands built in when apprise is not installed', () => {
    const [t] = buildTargets({
      notifyUrls: [],
      appriseUrls: ['ntfys://ntfy.example.com/alerts'],
      appriseAvailable: false,
    });
    expect(t).toMatchObject({ kind: 'ntfy', via: 'built-in', setting: 'WATCHKEEPER_APPRISE_URLS' });
  });

  it('refuses a mailto URL without a recipient, saying what to add', () => {
    expect(() => one('mailto://smtp.example.com')).toThrow(/needs a recipient: \?to=/);
  });

  it('reads the notification settings, with CLAUDEOPS_APPRISE_URLS as the Apprise targets, never echoing a URL', () => {
    const c = loadConfig({
      CLAUDEOPS_APPRISE_URLS: 'ntfy://topic-one',
      WATCHKEEPER_NOTIFY_URLS: 'json://127.0.0.1:9/x, gotify://g.lan/T',
      WATCHKEEPER_NOTIFY_ESCALATION_TIER: '2',
      WATCHKEEPER_NOTIFY_DEDUP_WINDOW: '10m',
      WATCHKEEPER_NOTIFY_RATE_LIMIT: '5',
    });
    expect(c.notifications).toMatchObject({
      appriseUrls: ['ntfy://topic-one'],
      notifyUrls: ['json://127.0.0.1:9/x', 'gotify://g.lan/T'],
      escalationTier: 2,
      dedupWindowMs: 600_000,
      rateLimitPerHour: 5,
    });
    expect(() => loadConfig({ WATCHKEEPER_NOTIFY_URLS: 'not a url secretword' })).toThrow(
      /WATCHKEEPER_NOTIFY_URLS=\(hidden, 20 characters\)/,
    );
  });
});
