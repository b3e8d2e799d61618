/**
 * A chat's messages as the prompt of the run it starts. The last user message is the prompt;
 * the messages before it (system, user, assistant) come first as the conversation so far, the
 * newest that fit within the prompt limit, so that a follow-up question keeps its context. A
 * chat of one message is that message alone. What follows the last user message is ignored.
 */
import { invalidField as invalid } from '../errors.js';
import { MAX_PROMPT_CHARS, operatorText, parsePrompt } from './run-input.js';

export interface ChatMessage {
  role: string;
  /** Text, or parts of which the `text` ones are read; null or absent for none. */
  content?: string | { type: string; text?: string | undefined }[] | null | undefined;
}

const HEADING = 'The conversation so far (oldest first):';
const DIVIDER = "\n\n---\n\nThe operator's new message:\n\n";

/** The text of a message; refused, naming the message, when it has parts other than text. */
function textOf(message: ChatMessage, field: string): string {
  const { content } = message;
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  const other = content.find((p) => p.type !== 'text');
  if (other) throw invalid(field, `only text parts are taken, not ${other.type}`);
  return content.map((p) => p.text ?? '').join('\n');
}

/** The prompt of the run a chat starts (see the module comment). */
export function chatPrompt(messages: readonly ChatMessage[]): string {
  const last = messages.findLastIndex((m) => m.role === 'user');
  if (last === -1) {
    throw invalid('messages', 'holds no user message (its last user message is what is asked)');
  }
  const field = `messages.${last}.content`;
  const question = parsePrompt(textOf(messages[last]!, field), field);
  if (question === null) throw invalid(field, 'the last user message is empty');

  let budget = MAX_PROMPT_CHARS - question.length - HEADING.length - DIVIDER.length;
  const earlier: string[] = [];
  for (let i = last - 1; i >= 0; i -= 1) {
    const f = `messages.${i}.content`;
    const text = operatorText(f, textOf(messages[i]!, f)).trim();
    if (text === '') continue;
    const entry = `${messages[i]!.role}: ${text}`;
    if (entry.length + 2 > budget) break;
    earlier.unshift(entry);
    budget -= entry.length + 2;
  }
  if (earlier.length === 0) return question;
  return `${HEADING}\n\n${earlier.join('\n\n')}${DIVIDER}${question}`;
}
