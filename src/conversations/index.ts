/** @module conversations: sliding-window summaries and automatic extraction (seeds 000, 001). */
export { importanceOf, OVERLAP_TOKENS, WINDOW_TOKENS } from './extractor.js';
export {
  MAX_CONTENT_CHARS,
  type MessageInput,
  parseConversationId,
  parseMessageInput,
  parseScope,
} from './input.js';
export { MAX_PAGE_BYTES, type MessagePage, parseCursor, readMessagePage } from './message-page.js';
export {
  EXTRACT_SCHEMA,
  EXTRACT_SYSTEM,
  formatMessage,
  GATE_SCHEMA,
  GATE_SYSTEM,
  SUMMARY_SYSTEM,
} from './prompts.js';
export {
  type ContextMemory,
  type ConversationContext,
  type ConversationOptions,
  type Conversations,
  createConversations,
  DEFAULT_CONVERSATION_OPTIONS,
  type PostOutcome,
} from './service.js';
export {
  type ExtractionWindow,
  extractionWindows,
  type SeqRange,
  summaryRange,
  type WindowMessage,
} from './window-math.js';
