/** The service a tool call is about: given, or the one known service its text names. */
import { validateService } from '../memory/index.js';
import type { ToolContext } from './context.js';
import { inferService } from './infer.js';

/** The service a tool call is about: the one given (empty or "general": none), else inferred. */
export async function serviceFor(ctx: ToolContext, given: string | undefined, text: string) {
  if (given !== undefined) return { service: validateService(given), inferred: false };
  const known = (await ctx.stores.services.list()).map((s) => s.name);
  const service = inferService(text, known);
  return { service, inferred: service !== null };
}
