/**
 * The memory graph's stores (seed 004): transcripts read, spans, ideas, entities and relations,
 and their search.
 */
export * from './graph.js';
