/** How long sessions, raw logs, events and memory history are kept before they are pruned. */
import { z } from 'zod';

import { parseDuration } from './parse.js';

/** A duration of a day or more, or off. */
const retention = z.string().transform((text, ctx): number | 'off' => {
  if (text.trim().toLowerCase() === 'off') return 'off';
  const ms = parseDuration(text);
  if (ms === null || ms < 86_400_000) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected a duration of at least 1d, such as 90d, or off',
    });
    return z.NEVER;
  }
  return ms;
});

export const retentionShape = {
  RETENTION: retention.default('off'),
};

/** Milliseconds, or null when everything is kept. */
export function retentionMs(c: z.infer<z.ZodObject<typeof retentionShape>>): number | null {
  return c.RETENTION === 'off' ? null : c.RETENTION;
}
