/**
 * Memories and what is kept beside them: the memories table and its history (reads, changes,
 the prompt block's groups), their search indexes (full text and vectors), which memories each
 session was given, memory scopes, the services catalog, tombstones of deleted memories, and
 the SQL of export and import.
 */
export * from './memories.js';
export * from './search.js';
export * from './surfacing.js';
export * from './scopes.js';
export * from './services.js';
export * from './tombstones.js';
export * from './portability.js';
