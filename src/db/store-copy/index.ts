/**
 * `migrate-store`: copying a SQLite store into the fleet's PostgreSQL database, and verifying
 the copy.
 */
export * from './store-copy.js';
export * from './store-copy-open.js';
export * from './store-copy-verify.js';
