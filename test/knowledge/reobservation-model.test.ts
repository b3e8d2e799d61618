/**
 * Re-observations judged with the real local model: a value restated in other words reinforces
 * below the "related" cosine, a move said outright supersedes below it, and an import's
 * judgement (memory.judge) reads each pair as observing does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { type KnowledgeApp, knowledgeApp, localEmbedder } from '../helpers/knowledge.js';

let app: KnowledgeApp;
beforeEach(() => {
  app = knowledgeApp(localEmbedder());
});
afterEach(() => app.close());

const add = (service: string, observation: string) =>
  app.keeper.add({ service, category: 'behavior', observation });

const PAIRS = {
  // Cosine 0.60 with the local model: under "related" (0.6), over "agreeing" (0.55).
  sameValue: [
    'smartd runs a long self-test on each disk weekly',
    'once a week smartd kicks off an extended self test on every drive',
  ],
  // Cosine 0.49: a change said outright of what the memory states.
  moved: [
    'the wireguard server runs on the opnsense router',
    'the wg endpoint was moved from opnsense to a small vps in frankfurt',
  ],
} as const;

describe('re-observations the rules read with the local model', () => {
  it(
    'reinforces a value restated in other words, below the related cosine',
    { timeout: 60_000 },
    async () => {
      const [a, b] = PAIRS.sameValue;
      const first = await add('smartd', a);
      const again = await add('smartd', b);
      expect(again.match!.similarity).toBeLessThan(0.6);
      expect(again).toMatchObject({ action: 'reinforced', memory: { id: first.memory.id } });
    },
  );

  it('supersedes a memory whose fact is said to have moved', { timeout: 60_000 }, async () => {
    const [a, b] = PAIRS.moved;
    const first = await add('wireguard', a);
    const moved = await add('wireguard', b);
    expect(moved.match!.similarity).toBeLessThan(0.6);
    expect(moved).toMatchObject({
      action: 'superseded',
      replaced: { id: first.memory.id, active: false },
    });
  });

  it('judges an import as observing decides', { timeout: 60_000 }, async () => {
    const kept = await add('smartd', PAIRS.sameValue[0]);
    const old = await add('wireguard', PAIRS.moved[0]);
    const judge = (service: string, observation: string) =>
      app.keeper.judge({ service, observation });
    expect(await judge('smartd', PAIRS.sameValue[1])).toMatchObject({
      kind: 'duplicate',
      memory: { id: kept.memory.id },
    });
    expect(await judge('wireguard', PAIRS.moved[1])).toMatchObject({
      kind: 'contradicts',
      memory: { id: old.memory.id },
    });
  });
});
