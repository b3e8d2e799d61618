/**
 * End to end: OpenAI's own client chats with a real `serve` whose sessions run the real Claude
 * CLI against the simulated model. A whole answer and a streamed one are what the model said;
 * each chat is a session recorded with trigger `chat` and its prompt, and a marker in the answer
 * is an event row. Two CLI launches. Needs dist/.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { type SimulatedModel, startSimulatedModel } from '../../src/sim/messages-api.js';
import { logLines } from '../helpers/log-lines.js';
import { side, text } from '../helpers/real-cli.js';

const BIN = new URL('../../bin/watchkeeper.js', import.meta.url).pathname;
const REAL_CLAUDE = loadConfig({}).runner.claudeBin;
const TOKEN = 'chat-e2e-token-0123456789abcdef';

const FIRST = '[EVENT:warning:nginx] certificate expires in 9 days\nnginx is up.';
const SECOND = 'The certificate of nginx expires in 9 days: renew it this week.';

let sim: SimulatedModel | undefined;
let serve: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  serve?.kill('SIGKILL');
  await sim?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  serve = sim = dataDir = undefined;
});

/** serve on a free port, its runs on the real CLI against `sim`; its dashboard's URL. */
async function startServe(model: SimulatedModel): Promise<string> {
  dataDir = mkdtempSync(join(tmpdir(), 'watchkeeper-chat-'));
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      WATCHKEEPER_DATA_DIR: dataDir,
      WATCHKEEPER_PORT: '0',
      WATCHKEEPER_SCHEDULE: 'off',
      WATCHKEEPER_AUTH_TOKEN: TOKEN,
      WATCHKEEPER_EMBEDDINGS: 'off',
      // No model jobs (summaries) beside the sessions: only the chats launch the CLI.
      WATCHKEEPER_GATEWAY: 'off',
      WATCHKEEPER_CLAUDE_BIN: REAL_CLAUDE,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'simulated',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  serve = child;
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  await expect
    .poll(() => logLines(log).find((l) => l.msg === 'watchkeeper serving'), { timeout: 90_000 })
    .toBeTruthy();
  const url = logLines(log).find((l) => l.msg === 'watchkeeper serving')!.dashboard as string;
  return url.replace(/\/$/, '');
}

interface Session {
  id: number;
  trigger: string;
  tier: number;
  status: string;
  prompt: string;
}

describe('chat with the ops agent through the OpenAI client', () => {
  it('answers whole and streamed with what the model said, each a recorded chat session', async () => {
    sim = await startSimulatedModel((r) =>
      side(r) ? [text('ok')] : [text(r.prompt.includes('certificate?') ? SECOND : FIRST)],
    );
    const base = await startServe(sim);
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: TOKEN, maxRetries: 0 });

    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([
      'watchkeeper',
      'watchkeeper-tier1',
      'watchkeeper-tier2',
      'watchkeeper-tier3',
    ]);

    const whole = await client.chat.completions.create({
      model: 'watchkeeper',
      messages: [{ role: 'user', content: 'Is nginx up?' }],
    });
    expect(whole.choices[0]!.message.content).toBe(FIRST);
    expect(whole.choices[0]!.finish_reason).toBe('stop');

    const stream = await client.chat.completions.create({
      model: 'watchkeeper-tier2',
      stream: true,
      messages: [
        { role: 'user', content: 'Is nginx up?' },
        { role: 'assistant', content: FIRST },
        { role: 'user', content: 'And its certificate?' },
      ],
    });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta.content ?? '');
    expect(pieces.filter((p) => p !== '').length).toBeGreaterThan(0);
    expect(pieces.join('')).toBe(SECOND);

    // The sessions, as the API lists them: newest first.
    const api = (path: string) =>
      fetch(`${base}/api/v1${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } }).then(
        (r) => r.json() as Promise<Record<string, unknown>>,
      );
    const { sessions } = (await api('/sessions?trigger=chat')) as { sessions: Session[] };
    expect(sessions).toHaveLength(2);
    const [second, first] = sessions as [Session, Session];
    expect(first).toMatchObject({
      trigger: 'chat',
      tier: 1,
      status: 'completed',
      prompt: 'Is nginx up?',
    });
    expect(second).toMatchObject({ trigger: 'chat', tier: 2, status: 'completed' });
    expect(second.prompt).toContain(`user: Is nginx up?\n\nassistant: ${FIRST}`);
    expect(second.prompt.endsWith('And its certificate?')).toBe(true);
    // The session ran as any other: the run context of its system prompt names the trigger.
    expect(sim.requests.some((r) => !side(r) && r.system.includes('trigger chat'))).toBe(true);

    const detail = (await api(`/sessions/${first.id}`)) as { events: Record<string, unknown>[] };
    expect(detail.events).toEqual([
      expect.objectContaining({
        level: 'warning',
        service: 'nginx',
        message: 'certificate expires in 9 days',
      }),
    ]);
  }, 300_000);
});
