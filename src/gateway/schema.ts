/**
 * A job's schema both ways: as JSON Schema for the backend (`--json-schema`, `output_config`,
 * `response_format`), and as the check of what came back. A zod schema gives a typed value; a
 * plain JSON schema is checked by json-schema-check.ts.
 */
import { z } from 'zod';

import { checkJsonSchema, type JsonSchema } from './json-schema-check.js';

function isZod(schema: unknown): schema is z.ZodType {
  return typeof schema === 'object' && schema !== null && '_zod' in schema;
}

/** JSON Schema without the `$schema` key that some APIs refuse. */
export function toJsonSchema(schema: z.ZodType | JsonSchema): JsonSchema {
  const json = isZod(schema)
    ? (z.toJSONSchema(schema) as JsonSchema)
    : (JSON.parse(JSON.stringify(schema)) as JsonSchema);
  delete json.$schema;
  return json;
}

/** JSON a model wrote as text: bare, or in one Markdown code fence. */
export function parseModelJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/i.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : trimmed) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The value checked against the schema: the parsed value, or the first problem. */
export function validateOutput<T>(
  value: unknown,
  schema: z.ZodType<T> | JsonSchema,
): { ok: true; value: T } | { ok: false; problem: string } {
  if (isZod(schema)) {
    const parsed = schema.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0]!;
    const path = issue.path.length ? `$.${issue.path.join('.')}` : '$';
    return { ok: false, problem: `${path}: ${issue.message}` };
  }
  const problem = checkJsonSchema(value, schema);
  return problem === null ? { ok: true, value: value as T } : { ok: false, problem };
}
