/**
 * Tool answers: concise text for the model plus the same facts as structured content. A failure
 * is a tool error (isError) naming the field at fault, never a crash of the server.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { isAppError } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * The structured content starts with the text as `summary`: Claude Code hands the model the
 * structured content instead of the text whenever there is one, and the summary is what reads
 * well.
 */
export function answer(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: { summary: text, ...structured } };
}

/** An error as the model sees it; `fields` renames the service's field names to the tool's. */
export function toolError(
  err: unknown,
  log: Logger,
  fields: Record<string, string> = {},
): CallToolResult {
  if (isAppError(err)) {
    const field = typeof err.data?.field === 'string' ? err.data.field : null;
    const renamed = field !== null ? fields[field] : undefined;
    const message =
      field !== null && renamed !== undefined && err.message.startsWith(`${field}:`)
        ? `${renamed}:${err.message.slice(field.length + 1)}`
        : err.message;
    return {
      content: [{ type: 'text', text: message }],
      structuredContent: { error: { code: err.code, message, field: renamed ?? field } },
      isError: true,
    };
  }
  log.error('memory tool failed', { error: err as Error });
  return {
    content: [{ type: 'text', text: `watchkeeper could not do this: ${(err as Error).message}` }],
    structuredContent: { error: { code: 'internal', message: (err as Error).message } },
    isError: true,
  };
}
