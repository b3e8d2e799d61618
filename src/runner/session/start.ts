/**
 * A session's beginning: its memory block and cooldown block, assembled before the row exists,
 * then the row itself and the record of which memories it was handed.
 */
import { currentCooldownsAwaited } from '../cooldown-now.js';
import { formatCooldownContext } from '../cooldown-policy.js';
import { type SessionRequest, type SessionRunnerDeps, triggerText } from './request.js';

export async function startSession(deps: SessionRunnerDeps, req: SessionRequest) {
  const { config, stores, knowledge, clock } = deps;
  const requestedAt = clock.now();
  const tierConfig = config.runner.tiers[req.tier];
  const memory = await knowledge.injection.build(
    { trigger: triggerText(req) },
    tierConfig.memoryBudget,
  );
  const cooldownBlock = formatCooldownContext(
    await currentCooldownsAwaited(
      stores,
      config.cooldowns,
      requestedAt,
      config.fleet.cooldownServices,
    ),
    config.cooldowns,
  );
  const sessionId = await stores.sessions.startAwaited({
    trigger: req.trigger,
    tier: req.tier,
    model: tierConfig.model,
    prompt: req.prompt,
    parentSessionId: req.parentSessionId,
    startedAt: requestedAt,
    simulated: deps.simulated ?? false,
  });
  await knowledge.injection.record(sessionId, memory.injected);
  return { sessionId, requestedAt, memoryBlock: memory.text, cooldownBlock };
}
