/** @module memory: the memory lifecycle as pure functions (values and `now` in, values out). */
export {
  assembleContext,
  type ContextBlock,
  type ContextGroup,
  type ContextMemory,
  GENERAL_GROUP,
  memoryLine,
} from './context.js';
export {
  applyDecay,
  type DecayOutcome,
  type DecayState,
  nextDecayAt,
  weeksPastGrace,
} from './decay.js';
export {
  CATEGORIES,
  type Category,
  DEFAULT_POLICY,
  formatConfidence,
  isCategory,
  type MemoryPolicy,
  roundConfidence,
} from './policy.js';
export { reinforcedConfidence } from './reinforce.js';
export { contentWords, mostSimilar, textSimilarity } from './similarity.js';
export { estimateTokens } from './tokens.js';
export {
  MAX_OBSERVATION_LENGTH,
  rejectControlCharacters,
  validateCategory,
  validateConfidence,
  validateObservation,
  validateService,
} from './validate.js';
