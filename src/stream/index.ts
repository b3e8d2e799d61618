/** @module stream: bytes -> lines -> typed stream-json messages -> markers. Pure, no I/O. */
export { LineSplitter, type LineSplitterOptions } from './lines.js';
export { markdownLines, quotedLines } from './markdown-blocks.js';
export {
  extractMarkers,
  type CooldownAction,
  type EventLevel,
  type HealthState,
  MAX_MARKER_TEXT,
  MAX_SERVICE_DESCRIPTION,
  type Marker,
  markerKey,
  type MarkerKind,
  markersFromMessage,
  normaliseHealth,
  normaliseLevel,
} from './markers.js';
export { parseLine, toMessage, toolResultText, type LineOutcome } from './messages.js';
export { normaliseService, SERVICE_PATTERN } from './names.js';
export {
  type ByteSource,
  DEFAULT_MAX_LINE_BYTES,
  parseStream,
  StreamParser,
  type StreamParserOptions,
} from './parser.js';
export { resultError, resultSucceeded } from './result-outcome.js';
export { TranscriptTracker, type TranscriptSummary } from './transcript.js';
export type {
  AssistantMessage,
  ContentBlock,
  JsonObject,
  ResultMessage,
  StreamMessage,
  StreamStats,
  SystemMessage,
  UnknownMessage,
  UserMessage,
} from './types.js';
export { emptyStats } from './types.js';
export * from './log-times.js';
