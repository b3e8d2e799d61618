/**
 * The process's health beyond "it answers": errors that escaped every handler (an unhandled
 * rejection) are counted here by the process guard of a long-running command, instead of ending
 * the process. /api/v1/health then says `degraded`, and /metrics counts them.
 */
import { Counter } from 'prom-client';

import { processRegistry } from './instruments.js';

export interface ProcessHealth {
  status: 'ok' | 'degraded';
  /** Errors that escaped every handler since the process started. */
  unhandledErrors: number;
  /** When the last one escaped (epoch ms); what it said is in the log only. */
  lastErrorAt: number | null;
}

const unhandled = new Counter({
  name: 'watchkeeper_unhandled_errors_total',
  help: 'Errors that escaped every handler (unhandled rejections), logged and survived',
  registers: [processRegistry],
});

let state: ProcessHealth = {
  status: 'ok',
  unhandledErrors: 0,
  lastErrorAt: null,
};

/** Records an error that escaped every handler: the process is degraded from now on. */
export function noteUnhandledError(at: number): void {
  unhandled.inc();
  state = { status: 'degraded', unhandledErrors: state.unhandledErrors + 1, lastErrorAt: at };
}

export function processHealth(): ProcessHealth {
  return state;
}
