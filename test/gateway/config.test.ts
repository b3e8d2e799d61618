/** The gateway's and conversation memory's settings: defaults, backends, refusals. */
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';

describe('gateway and conversation config', () => {
  it('uses the Claude CLI when it has a credential, and is off (with the reason) otherwise', () => {
    expect(loadConfig({ ANTHROPIC_API_KEY: 'k' }).gateway).toMatchObject({
      backend: 'cli',
      offReason: null,
      models: { gate: 'haiku', extract: 'sonnet', summary: 'sonnet' },
      dailyBudgetUsd: 1,
    });
    const off = loadConfig({}).gateway;
    expect(off.backend).toBe('off');
    expect(off.offReason).toMatch(
      /no model is configured for the gateway: set WATCHKEEPER_GATEWAY/,
    );
  });

  it('gives the openai backend its own default model and URL, and takes a budget in dollars', () => {
    expect(
      loadConfig({ WATCHKEEPER_GATEWAY: 'openai', WATCHKEEPER_GATEWAY_DAILY_BUDGET: '0.50' })
        .gateway,
    ).toMatchObject({
      url: 'https://api.openai.com',
      key: null,
      models: { gate: 'gpt-4.1-mini', extract: 'gpt-4.1-mini', summary: 'gpt-4.1-mini' },
      dailyBudgetUsd: 0.5,
    });
  });

  it('takes the anthropic key and base URL of the CLI when it has none of its own', () => {
    const g = loadConfig({
      WATCHKEEPER_GATEWAY: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
    }).gateway;
    expect(g).toMatchObject({ url: 'http://127.0.0.1:9999', key: 'sk-ant' });
    expect(() => loadConfig({ WATCHKEEPER_GATEWAY: 'anthropic' })).toThrow(
      /WATCHKEEPER_GATEWAY=anthropic needs WATCHKEEPER_GATEWAY_KEY/,
    );
  });

  it.each([
    [{ WATCHKEEPER_GATEWAY_MODEL_EXTRACT: 'claude-opus-4-1' }, /MODEL_EXTRACT.*never uses opus/],
    [{ WATCHKEEPER_GATEWAY: 'gemini' }, /WATCHKEEPER_GATEWAY="gemini"/],
    [{ WATCHKEEPER_GATEWAY_DAILY_BUDGET: '-1' }, /DAILY_BUDGET.*dollars/],
    [{ WATCHKEEPER_CONVERSATION_SCOPE: 'ops' }, /CONVERSATION_SCOPE.*share a scope with ops/],
    [{ WATCHKEEPER_CONVERSATION_STALE: 'soon' }, /CONVERSATION_STALE/],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("has seed 001's settings for conversations by default", () => {
    expect(loadConfig({}).conversations).toEqual({
      scope: null,
      windowSize: 14,
      summarizeAfterSeq: 5,
      staleAfterMs: 300_000,
      extractEveryMessages: 10,
      extractIntervalMs: 60_000,
    });
  });
});
