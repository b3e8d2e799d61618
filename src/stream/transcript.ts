/**
 * Session-level facts gathered while messages stream past: the CLI's session id, the model,
 * the final text and the result line. Pure; holds only the last assistant message's text.
 *
 * A message may carry any number of blocks (200K have been seen), so nothing here spreads a
 * message's blocks into call arguments: that overflows the stack and loses the rest of the stream.
 */
import type { ResultMessage, StreamMessage } from './types.js';

export interface TranscriptSummary {
  cliSessionId: string | null;
  model: string | null;
  result: ResultMessage | null;
  /** `result.result` when non-empty, else the main agent's last assistant text. */
  finalText: string | null;
  assistantMessages: number;
  toolUses: number;
}

export class TranscriptTracker {
  private cliSessionId: string | null = null;
  private model: string | null = null;
  private result: ResultMessage | null = null;
  private lastMessageId: string | null = null;
  private lastText: string[] = [];
  private assistantMessages = 0;
  private toolUses = 0;

  observe(message: StreamMessage): void {
    switch (message.type) {
      case 'system':
        if (message.subtype === 'init') {
          this.cliSessionId ??= message.sessionId;
          this.model ??= message.model;
        }
        return;
      case 'assistant': {
        if (message.parentToolUseId !== null) return;
        this.model ??= message.model;
        let hasText = false;
        for (const b of message.content) {
          if (b.type === 'tool_use') this.toolUses += 1;
          else if (b.type === 'text') hasText = true;
        }
        // One API response arrives as several lines sharing message.id: count it once.
        const isNewMessage = message.messageId === null || message.messageId !== this.lastMessageId;
        if (isNewMessage) this.assistantMessages += 1;
        if (!hasText) return;
        if (isNewMessage || this.lastMessageId === null) this.lastText = [];
        this.lastMessageId = message.messageId;
        for (const b of message.content) if (b.type === 'text') this.lastText.push(b.text);
        return;
      }
      case 'result':
        this.result = message;
        this.cliSessionId ??= message.sessionId;
        return;
      default:
        return;
    }
  }

  get summary(): TranscriptSummary {
    const fromResult = this.result?.result?.trim() ? this.result.result : null;
    const fromText = this.lastText.length > 0 ? this.lastText.join('\n') : null;
    return {
      cliSessionId: this.cliSessionId,
      model: this.model,
      result: this.result,
      finalText: fromResult ?? fromText,
      assistantMessages: this.assistantMessages,
      toolUses: this.toolUses,
    };
  }
}
