/**
 * Conversation memory and the model gateway's jobs: conversations, their sliding-window
 summaries, what extraction did with each window, the job records, and their JSON forms.
 */
export * from './conversations.js';
export * from './summaries.js';
export * from './extractions.js';
export * from './gateway-jobs.js';
export * from './conversation-json.js';
