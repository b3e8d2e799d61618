/**
 * Sessions and their records: one row per CLI run (its lifecycle, reads and list filters), what
 each session got and did beside its row, and the alerts that repeated while it was queued.
 */
export * from './sessions.js';
export * from './session-filter.js';
export * from './session-records.js';
export * from './alert-repeats.js';
export * from './run-outcome.js';
