/**
 * The model names the OpenAI-compatible chat offers: `watchkeeper` (a run at the usual start
 * tier, as a scheduled run starts) and `watchkeeper-tierN` for each tier up to MAX_TIER. The
 * name is all a chat client can choose, so it picks the tier.
 */
import type { Tier } from '../runner/session-runner.js';

export const CHAT_MODEL = 'watchkeeper';
/** The tier a run starts at unless asked otherwise (scheduled runs start here too). */
const USUAL_START_TIER: Tier = 1;

export interface ChatModel {
  id: string;
  tier: Tier;
}

/** Every model a chat may name, `watchkeeper` first. */
export function chatModels(maxTier: Tier): ChatModel[] {
  const tiers = ([1, 2, 3] as const).filter((t) => t <= maxTier);
  return [
    { id: CHAT_MODEL, tier: USUAL_START_TIER },
    ...tiers.map((tier) => ({ id: `${CHAT_MODEL}-tier${tier}`, tier })),
  ];
}

/** The model a chat named, or null when there is none of that name. */
export function chatModel(id: string, maxTier: Tier): ChatModel | null {
  return chatModels(maxTier).find((m) => m.id === id) ?? null;
}

/** A model as OpenAI's `GET /v1/models` lists it; `created` in epoch seconds. */
export function modelJson(model: ChatModel, createdSeconds: number) {
  return { id: model.id, object: 'model' as const, created: createdSeconds, owned_by: CHAT_MODEL };
}
