/**
 * A chat's messages as its run's prompt: the last user message, after as much of the
 * conversation before it as fits within the prompt limit, newest kept; text only.
 */
import { describe, expect, it } from 'vitest';

import { chatPrompt } from '../../src/web/chat-prompt.js';
import { MAX_PROMPT_CHARS } from '../../src/web/run-input.js';

describe('chatPrompt', () => {
  it('is the one message alone, trimmed, when there is nothing before it', () => {
    expect(chatPrompt([{ role: 'user', content: '  Is nginx up?\r\n' }])).toBe('Is nginx up?');
  });

  it('keeps the newest earlier messages that fit within the limit, and skips empty ones', () => {
    const long = 'x'.repeat(MAX_PROMPT_CHARS / 2);
    const prompt = chatPrompt([
      { role: 'user', content: `first-question ${long}` },
      { role: 'assistant', content: `older ${long}` },
      { role: 'assistant', content: null },
      { role: 'user', content: 'newer' },
      { role: 'user', content: 'And now?' },
      { role: 'assistant', content: 'ignored: after the last user message' },
    ]);
    expect(prompt.length).toBeLessThanOrEqual(MAX_PROMPT_CHARS);
    expect(prompt).toContain(`assistant: older ${long}`);
    expect(prompt).toContain('user: newer');
    expect(prompt).not.toContain('first-question');
    expect(prompt).not.toContain('ignored');
    expect(prompt.endsWith("The operator's new message:\n\nAnd now?")).toBe(true);
  });

  it('refuses a message with parts other than text, and a last message over the limit', () => {
    expect(() =>
      chatPrompt([{ role: 'user', content: [{ type: 'image_url' }, { type: 'text', text: 'x' }] }]),
    ).toThrow('messages.0.content: only text parts are taken, not image_url');
    expect(() => chatPrompt([{ role: 'user', content: 'y'.repeat(MAX_PROMPT_CHARS + 1) }])).toThrow(
      /messages\.0\.content: is 20,001 characters; the limit is 20,000/,
    );
  });
});
