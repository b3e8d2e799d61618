/** @module memory: the memory lifecycle as pure functions (values and `now` in, values out). */
export {
  assembleContext,
  type ContextBlock,
  type ContextGroup,
  type ContextMemory,
  GENERAL_GROUP,
  lineCost,
  memoryLine,
  selectByPriority,
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
export { inferCategory } from './infer-category.js';
export {
  type JudgeCandidate,
  judgedEvidence,
  type JudgeRequest,
  type JudgeVerdict,
  type MemoryJudge,
} from './judge.js';
export { reinforcedConfidence } from './reinforce.js';
export {
  contentWords,
  mostSimilar,
  queryCoverage,
  queryWords,
  sayingWordCount,
  textSimilarity,
} from './similarity.js';
export { type QueryWeights, queryWeights, weightedCoverage } from './evidence.js';
export { porterStem } from './porter.js';
export { estimateTokens } from './tokens.js';
export { memoryKey, type MemoryIdentity, wordingsOf } from './identity.js';
export {
  CLOCK_SKEW_MS,
  EARLIEST_TIME,
  MAX_DESCRIPTION_LENGTH,
  MAX_NOTE_LENGTH,
  MAX_OBSERVATION_LENGTH,
  rejectControlCharacters,
  validateCategory,
  validateConfidence,
  validateDescription,
  validateNote,
  validateObservation,
  validateScope,
  validateService,
  validateTime,
} from './validate.js';
export {
  compareFacts,
  type Contradiction,
  type FactComparison,
  findContradiction,
  valueOfOtherSubject,
} from './contradiction.js';
export { readReobservation, type Reobservation, type ReobservationBars } from './reobservation.js';
export { extractFacts, type Fact, type FactKind, sameValues, valuesCovered } from './facts.js';
export { NUMBER_WORDS } from './fact-words.js';
export {
  bestFusedScore,
  type Candidate,
  confidenceWeight,
  CORE_SUGGESTION,
  DEFAULT_RANKING,
  fusedScore,
  hasEvidence,
  KNOWN_SHARE,
  LEAD_SHARE,
  IMPORTANCE_STEP,
  IMPORTANCE_VALUES,
  type ImportanceLevel,
  importanceValue,
  importanceWeight,
  mergeCandidates,
  type ListsUsed,
  MIN_COVERAGE,
  type RankingPolicy,
  recencyWeight,
  scoreCandidate,
  type ScoreInput,
  STRONG_RANK,
  type ScoreParts,
  suggestsCore,
} from './ranking.js';
export { LEXICAL, type SimilarityThresholds, thresholdsFor } from './thresholds.js';
export {
  dot,
  fromBlob,
  normalise,
  popcount,
  POPCOUNT16,
  signatureWords,
  signBits,
  toBlob,
} from './vectors.js';
