/**
 * Importing a Claude Ops (Go sidecar) database: reading it, converting its rows, and the
 import with its report.
 */
export * from './claudeops-import.js';
export * from './claudeops-source.js';
