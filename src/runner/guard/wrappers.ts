/**
 * Commands that run other commands, by family: as another user (run-as.ts), under another
 * priority or tracer (process-wrappers.ts), from words or a string (launchers.ts), per item or
 * repeatedly (repeaters.ts), from a string now or later (deferred.ts), and ssh. Shells are in
 * shells.ts, interpreters in interpreters.ts. Each hands the inner command back to the engine.
 */
import { DEFERRED } from './deferred.js';
import type { Handler } from './env.js';
import { LAUNCHERS } from './launchers.js';
import { PROCESS_WRAPPERS } from './process-wrappers.js';
import { REPEATERS } from './repeaters.js';
import { RUN_AS } from './run-as.js';
import { ssh } from './ssh.js';

export const WRAPPERS: Record<string, Handler> = {
  ...RUN_AS,
  ...PROCESS_WRAPPERS,
  ...LAUNCHERS,
  ...REPEATERS,
  ...DEFERRED,
  ssh,
};
