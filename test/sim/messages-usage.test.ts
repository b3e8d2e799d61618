/** The simulated model reports usage as the real API does: whole token counts. */
import { afterEach, describe, expect, it } from 'vitest';

import { startSimulatedModel, type SimulatedModel } from '../../src/sim/messages-api.js';

let sim: SimulatedModel | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

describe('the simulated model', () => {
  it('streams a whole output token count for a text whose length is not a multiple of four', async () => {
    sim = await startSimulatedModel(() => [{ type: 'text', text: 'x'.repeat(485) }]);
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim',
        stream: true,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'hello' }],
      }),
    });
    const stream = await res.text();
    const delta = stream
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; usage?: { output_tokens: number } })
      .find((e) => e.type === 'message_delta');
    expect(delta?.usage?.output_tokens).toBe(20 + 122);
  });
});
