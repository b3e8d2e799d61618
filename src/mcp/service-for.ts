/** The service a tool call is about: given, or the one known service its text names. */
import { validateService } from '../memory/index.js';
import type { ToolContext } from './context.js';
import { inferService } from './infer.js';

/**
 * The service a tool call is about: the one given (empty or "general": none), else inferred;
 * `remembered` when an inferred one has active memories (memory knows that topic).
 */
export async function serviceFor(ctx: ToolContext, given: string | undefined, text: string) {
  if (given !== undefined) {
    return { service: validateService(given), inferred: false, remembered: false };
  }
  const rows = await ctx.stores.services.list();
  const service = inferService(
    text,
    rows.map((s) => s.name),
  );
  const remembered = rows.some((s) => s.name === service && s.activeMemories > 0);
  return { service, inferred: service !== null, remembered };
}
