import { stripVTControlCharacters } from 'node:util';

import { describe, expect, it } from 'vitest';

import { cliLogger } from '../src/cli/logger.js';
import { loadConfig } from '../src/config/index.js';
import { AppError } from '../src/errors.js';
import { createLogger, type LoggerOptions, type LogLevel } from '../src/log.js';
import { fakeClock } from './helpers/clock.js';
import { logLines } from './helpers/log-lines.js';

const AT = Date.UTC(2026, 10, 23, 15, 4, 5, 678);

function capture(level: LogLevel = 'info', options: LoggerOptions = {}) {
  let out = '';
  const log = createLogger(
    level,
    (line) => (out += line),
    () => AT,
    options,
  );
  return { log, out: () => out };
}

describe('the logger', () => {
  it('writes one JSON object per line with level, time and msg, then the fields', () => {
    const { log, out } = capture();
    log.info('session ended', { session: 3, status: 'completed', skipped: undefined });
    log.warn('queue full');
    expect(out().endsWith('\n')).toBe(true);
    const lines = out().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'info',
      time: '2026-11-23T15:04:05.678Z',
      msg: 'session ended',
      session: 3,
      status: 'completed',
    });
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('skipped');
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: 'warn', msg: 'queue full' });
  });

  it('writes nothing below its level, and nothing at all when silent', () => {
    const warn = capture('warn');
    warn.log.debug('d');
    warn.log.info('i');
    warn.log.error('e');
    expect(logLines(warn.out()).map((l) => [l.level, l.msg])).toEqual([['error', 'e']]);
    const silent = capture('silent');
    silent.log.error('e');
    expect(silent.out()).toBe('');
  });

  it('logs an expected failure by its code and message, and a bug with its stack', () => {
    const { log, out } = capture();
    log.error('run failed', { error: new AppError('busy', 'the run queue is full') });
    log.error('run failed', { error: new TypeError('x is undefined') });
    const [expected, bug] = logLines(out());
    expect(expected!.error).toEqual({
      type: 'AppError',
      code: 'busy',
      message: 'the run queue is full',
    });
    expect(bug!.error).toMatchObject({ type: 'TypeError', message: 'x is undefined' });
    expect((bug!.error as { stack: string }).stack).toContain('log.test.ts');
  });

  it('never writes a secret it is handed by mistake', () => {
    const secret = 's3cret-0123456789abcdef';
    const { log, out } = capture('debug');
    log.info('request refused', {
      token: secret,
      password: secret,
      headers: { authorization: `Bearer ${secret}`, cookie: `wk_session=${secret}` },
      gateway: { apiKey: secret, key: secret },
      appriseUrls: [`ntfys://user:${secret}@ntfy.example/alerts`],
    });
    log.warn(`backend answered 401 to Authorization: Bearer ${secret}`);
    log.error('delivery failed', {
      error: new Error(`POST https://hook:${secret}@hooks.example/x failed`),
      target: `https://bot:${secret}@chat.example/hooks/1`,
    });
    expect(out()).not.toContain(secret);
    const [fields, message, failure] = logLines(out());
    expect(fields).toMatchObject({
      token: '[redacted]',
      password: '[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
      gateway: { apiKey: '[redacted]', key: '[redacted]' },
    });
    expect(message!.msg).toBe('backend answered 401 to Authorization: Bearer [redacted]');
    expect(failure!.target).toBe('https://[redacted]@chat.example/hooks/1');
  });

  it('writes readable lines instead of JSON when asked for the pretty format', () => {
    const { log, out } = capture('info', { format: 'pretty' });
    log.info('watchkeeper serving', { dashboard: 'http://127.0.0.1:8080/', token: 'abc-secret' });
    const line = out();
    expect(line.startsWith('{')).toBe(false);
    // In UTC, said so (Z), as the ISO times in its fields are.
    expect(line).toMatch(/^\[2026-11-23 15:04:05\.678Z\] INFO: watchkeeper serving /);
    expect(line).toContain('"dashboard":"http://127.0.0.1:8080/"');
    expect(line).not.toContain('abc-secret');
    expect(line.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('the logger of a command (WATCHKEEPER_LOG_FORMAT, WATCHKEEPER_LOG_LEVEL)', () => {
  const io = (stderrIsTty: boolean) => {
    const out = { text: '' };
    return {
      out,
      io: {
        stdout: () => {},
        stderr: (t: string) => (out.text += t),
        stderrIsTty,
        stdin: (async function* () {})(),
        env: {},
        clock: fakeClock(AT),
        onSignal: () => () => {},
      },
    };
  };

  it.each([
    ['auto', false, 'json'],
    ['auto', true, 'pretty'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
  ] as const)('format %s with a terminal: %s writes %s', (format, tty, expected) => {
    const config = loadConfig({ WATCHKEEPER_LOG_FORMAT: format, WATCHKEEPER_LOG_LEVEL: 'warn' });
    const { out, io: cliIo } = io(tty);
    const log = cliLogger(config, cliIo);
    log.info('not at this level');
    log.warn('disk nearly full');
    expect(out.text).not.toContain('not at this level');
    if (expected === 'json')
      expect(logLines(out.text)[0]).toMatchObject({ msg: 'disk nearly full' });
    else expect(stripVTControlCharacters(out.text)).toMatch(/WARN: disk nearly full/);
  });

  it('refuses a format it does not know, naming the variable', () => {
    expect(() => loadConfig({ WATCHKEEPER_LOG_FORMAT: 'xml' })).toThrow(/WATCHKEEPER_LOG_FORMAT/);
  });
});
