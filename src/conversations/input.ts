/**
 * What a client may post: a conversation id, a message (role, content, optionally its seq) and a
 * scope, each checked with an error that names the field. Nothing is stored when one is bad.
 */
import { MESSAGE_ROLES, type MessageRole, OPS_SCOPE } from '../db/index.js';
import { AppError } from '../errors.js';
import { findControlCharacter, notAScopeName, printable, SCOPE_NAME } from '../text-rules.js';

/** Longest message content accepted (characters); a larger body is refused before (413). */
export const MAX_CONTENT_CHARS = 100_000;
export const MAX_SEQ = 1_000_000_000;

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function bad(field: string, message: string): AppError {
  return new AppError('usage', `${field}: ${message}`, { data: { field } });
}

export function parseConversationId(value: unknown): string {
  if (typeof value !== 'string' || !ID.test(value)) {
    throw bad(
      'id',
      `"${printable(String(value))}" is not a conversation id: use 1 to 128 letters, digits, ".", "_", ":" and "-", starting with a letter or digit`,
    );
  }
  return value;
}

export function parseScope(value: unknown, field = 'scope'): string {
  if (typeof value !== 'string' || !SCOPE_NAME.test(value)) {
    throw bad(field, notAScopeName(String(value)));
  }
  if (value === OPS_SCOPE) {
    throw bad(field, '"ops" is the scheduled sessions\' own scope; share a scope with ops instead');
  }
  return value;
}

export interface MessageInput {
  role: MessageRole;
  content: string;
  seq?: number;
  scope?: string;
}

/** A posted message (a JSON object), checked field by field. */
export function parseMessageInput(body: Record<string, unknown>): MessageInput {
  const known = new Set(['role', 'content', 'seq', 'scope']);
  const unknown = Object.keys(body).find((k) => !known.has(k));
  if (unknown) throw bad(unknown, `unknown field; a message has ${[...known].join(', ')}`);
  const { role, content, seq, scope } = body;
  if (typeof role !== 'string' || !(MESSAGE_ROLES as readonly string[]).includes(role)) {
    throw bad('role', `must be one of ${MESSAGE_ROLES.join(', ')}, got ${JSON.stringify(role)}`);
  }
  if (typeof content !== 'string') throw bad('content', 'must be a string');
  // A CRLF pair is a line break, not a control character.
  const text = content.replace(/\r\n/g, '\n');
  if (text.trim() === '') throw bad('content', 'must not be empty');
  if (text.length > MAX_CONTENT_CHARS) {
    throw bad('content', `is ${text.length} characters, over the limit of ${MAX_CONTENT_CHARS}`);
  }
  const control = findControlCharacter(text);
  if (control) {
    throw bad(
      'content',
      `contains the control character ${control.code} at position ${control.index}`,
    );
  }
  if (
    seq !== undefined &&
    (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0 || seq > MAX_SEQ)
  ) {
    throw bad('seq', `must be a whole number from 0 to ${MAX_SEQ}, got ${JSON.stringify(seq)}`);
  }
  return {
    role: role as MessageRole,
    content: text,
    ...(seq !== undefined ? { seq: seq as number } : {}),
    ...(scope !== undefined ? { scope: parseScope(scope) } : {}),
  };
}
