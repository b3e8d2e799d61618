/**
 * The Claude Code hooks exactly as the README's settings.json snippet installs them: the command
 * run as a process (bin/watchkeeper.js, the hook JSON on stdin) against a watchkeeper listening on
 * loopback; and against one that is down or never answers, where the hook must exit 0 and leave
 * the user's session alone.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { startWebServer, type WebServer } from '../../src/web/server.js';
import { TOKEN, webHarness, type WebHarness } from '../helpers/web.js';

const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));
const README = fileURLToPath(new URL('../../README.md', import.meta.url));

interface Settings {
  env: Record<string, string>;
  hooks: Record<string, { hooks: { type: string; command: string; timeout: number }[] }[]>;
}

/** The settings.json snippet of the README's "Claude Code hooks" section. */
function readmeSettings(): Settings {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('### Claude Code hooks'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section)![1]!;
  return JSON.parse(block) as Settings;
}

/** Runs a hook command of the snippet (`watchkeeper ...` is this checkout's bin). */
function runHook(command: string, stdin: unknown, env: Record<string, string>) {
  const args = command.split(' ');
  expect(args[0]).toBe('watchkeeper');
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args.slice(1)],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 90_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(JSON.stringify(stdin));
  });
}

let h: WebHarness | undefined;
let web: WebServer | undefined;
let hanging: Server | undefined;
afterEach(async () => {
  await web?.close();
  await new Promise<void>((r) => (hanging ? hanging.close(() => r()) : r()));
  h?.close();
  h = web = hanging = undefined;
});

const settings = readmeSettings();
const prompt = settings.hooks.UserPromptSubmit![0]!.hooks[0]!;
const stop = settings.hooks.Stop![0]!.hooks[0]!;

describe('Claude Code hooks (the README snippet)', () => {
  it('is a valid settings.json with both hooks and the two variables', () => {
    expect(prompt).toMatchObject({
      type: 'command',
      command: 'watchkeeper hook user-prompt-submit',
    });
    expect(stop).toMatchObject({ type: 'command', command: 'watchkeeper hook stop' });
    expect(Object.keys(settings.env).sort()).toEqual(['WATCHKEEPER_AUTH_TOKEN', 'WATCHKEEPER_URL']);
  });

  it('posts the prompt, answers with the relevant memories, and posts the reply', async () => {
    h = webHarness();
    await h.knowledge.memory.observe({
      service: null,
      category: 'behavior',
      observation: 'The staging Postgres listens on port 5433',
      sessionId: null,
      tier: 1,
      source: 'conversation',
      scope: 'claude-code',
    });
    web = await startWebServer(h.app, { ...loopback(), authToken: TOKEN });
    const env = { WATCHKEEPER_URL: web.url, WATCHKEEPER_AUTH_TOKEN: TOKEN };
    const asked = await runHook(
      prompt.command,
      {
        session_id: 'abc123',
        hook_event_name: 'UserPromptSubmit',
        prompt: 'Which port does the staging Postgres use?',
      },
      env,
    );
    expect(asked.code).toBe(0);
    const output = JSON.parse(asked.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    expect(output.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
    expect(output.hookSpecificOutput.additionalContext).toContain(
      'The staging Postgres listens on port 5433',
    );
    const answered = await runHook(
      stop.command,
      {
        session_id: 'abc123',
        hook_event_name: 'Stop',
        stop_hook_active: false,
        last_assistant_message: 'It uses port 5433.',
      },
      env,
    );
    expect(answered).toMatchObject({ code: 0, stdout: '' });
    const conv = (await h.stores.conversations.get('claude-code-abc123'))!;
    expect(conv.scope).toBe('claude-code');
    expect(
      (await h.stores.conversations.messages(conv.id, 0, 10)).map((m) => [m.role, m.content]),
    ).toEqual([
      ['user', 'Which port does the staging Postgres use?'],
      ['assistant', 'It uses port 5433.'],
    ]);
  });

  it('with the wrong token, or watchkeeper down or hanging, exits 0 and adds nothing', async () => {
    h = webHarness();
    web = await startWebServer(h.app, { ...loopback(), authToken: TOKEN });
    const payload = { session_id: 's1', prompt: 'hello' };
    const wrong = await runHook(prompt.command, payload, {
      WATCHKEEPER_URL: web.url,
      WATCHKEEPER_AUTH_TOKEN: 'not-the-token-0123456789',
    });
    expect(wrong).toMatchObject({ code: 0, stdout: '' });
    expect(wrong.stderr).toMatch(/HTTP 401/);
    expect(await h.stores.conversations.count()).toBe(0);

    const url = web.url;
    await web.close();
    web = undefined;
    const down = await runHook(prompt.command, payload, { WATCHKEEPER_URL: url });
    expect(down).toMatchObject({ code: 0, stdout: '' });
    expect(down.stderr).toMatch(/did not answer/);

    // Accepts the connection and never answers: the hook gives up on its own.
    hanging = createServer(() => {});
    await new Promise<void>((r) => hanging!.listen(0, '127.0.0.1', r));
    const port = (hanging.address() as AddressInfo).port;
    const stuck = await runHook(
      stop.command,
      { session_id: 's1', last_assistant_message: 'hi' },
      {
        WATCHKEEPER_URL: `http://127.0.0.1:${port}`,
      },
    );
    expect(stuck).toMatchObject({ code: 0, stdout: '' });
    expect(stuck.stderr).toMatch(/no answer in time/);
  });
});

function loopback() {
  return {
    host: '127.0.0.1',
    port: 0,
    authToken: null,
    authUser: null,
    webhookMaxBytes: 65536,
    allowedHosts: [],
    trustedProxies: [],
    secureCookies: false,
  };
}
