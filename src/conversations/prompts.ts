/**
 * What the gateway is asked for each conversation job: the instructions (each starts with a
 * `[watchkeeper:KIND]` tag that names the job, which the simulated model reads too), the
 * message format `[#SEQ role] text`, and the schemas of the gate's and the extractor's answers.
 */
import { z } from 'zod';

import { MEMORY_TYPES } from '../db/index.js';

interface PromptMessage {
  seq: number;
  role: string;
  content: string;
}

/** One message as the model sees it. */
export function formatMessage(m: PromptMessage): string {
  return `[#${m.seq} ${m.role}] ${m.content}`;
}

export const SUMMARY_SYSTEM = `[watchkeeper:summary] You keep a rolling summary of a conversation between a user and an assistant.
You get the previous summary (if any) and the messages that came after it. Write the new summary:
what was asked, decided and learned, names, numbers and open questions, as short lines.
The summary covers a sliding window: drop everything that was said in messages before the window's
first message, and keep what happened inside the window. Answer with the summary text only.`;

export function summaryPrompt(o: {
  startSeq: number;
  endSeq: number;
  previous: { text: string; startSeq: number; endSeq: number } | null;
  messages: readonly PromptMessage[];
}): string {
  const parts = [
    `Window: messages ${o.startSeq} to ${o.endSeq}. Drop anything from messages before ${o.startSeq}.`,
  ];
  if (o.previous) {
    parts.push(
      `Previous summary (covers messages ${o.previous.startSeq} to ${o.previous.endSeq}):\n${o.previous.text}`,
    );
  } else {
    parts.push('Previous summary: none.');
  }
  parts.push(`New messages:\n${o.messages.map(formatMessage).join('\n')}`);
  return parts.join('\n\n');
}

export const GATE_SYSTEM = `[watchkeeper:gate] You decide whether a piece of conversation holds anything worth remembering
long term: a decision, a preference, a fact about the user, their projects or their systems, an
insight, a commitment or a deadline. Idle chatter, greetings and thanks are not. Answer with JSON:
{"worth_remembering": true or false, "reason": "one short sentence"}.`;

export const GATE_SCHEMA = z.strictObject({
  worth_remembering: z.boolean(),
  reason: z.string().min(1).max(500),
});
export type GateAnswer = z.infer<typeof GATE_SCHEMA>;

export function windowPrompt(o: {
  startSeq: number;
  endSeq: number;
  messages: readonly PromptMessage[];
}): string {
  return `Conversation window (messages ${o.startSeq}-${o.endSeq}):\n${o.messages.map(formatMessage).join('\n')}`;
}

export const EXTRACT_SYSTEM = `[watchkeeper:extract] You extract what is worth remembering from a piece of conversation, as
separate memories. Each memory is one self-contained sentence that makes sense without the
conversation. Do not repeat what the existing memories already say. Importance: 1 trivial, 3
useful, 5 essential. Type: decision, insight, fact, preference, project or conversation. Topic
tags: a few lower-case words. Answer with JSON: {"memories": [{"content", "importance", "type",
"topic_tags"}]} (an empty list when nothing qualifies).`;

export const EXTRACT_SCHEMA = z.strictObject({
  memories: z
    .array(
      z.strictObject({
        content: z.string().min(1).max(2000),
        importance: z.number().int().min(1).max(5),
        type: z.enum(MEMORY_TYPES),
        topic_tags: z.array(z.string().max(60)).max(10),
      }),
    )
    .max(20),
});
export type ExtractAnswer = z.infer<typeof EXTRACT_SCHEMA>;

export function extractPrompt(o: {
  startSeq: number;
  endSeq: number;
  messages: readonly PromptMessage[];
  existing: readonly string[];
}): string {
  const existing =
    o.existing.length === 0
      ? 'Existing memories: none.'
      : `Existing memories (do not repeat these):\n${o.existing.map((e) => `- ${e}`).join('\n')}`;
  return `${existing}\n\n${windowPrompt(o)}`;
}
