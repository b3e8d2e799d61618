/**
 * Events: the events table, groups of identical events with their acknowledgement, and the
 Events page's full-text search.
 */
export * from './events.js';
export * from './event-groups.js';
export * from './event-search.js';
