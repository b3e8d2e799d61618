/**
 * Checks a value against the part of JSON Schema that structured model output uses (type,
 * properties, required, additionalProperties, items, enum, const, the numeric and length bounds,
 * anyOf). A job may hand the gateway a plain JSON schema instead of a zod one; the answer is
 * checked here, whatever the backend claims to have enforced.
 */
export type JsonSchema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

/** The first problem found, as `path: what is wrong`, or null when the value fits. */
export function checkJsonSchema(value: unknown, schema: JsonSchema, path = '$'): string | null {
  if (Array.isArray(schema.anyOf)) {
    const fits = (schema.anyOf as JsonSchema[]).some(
      (s) => checkJsonSchema(value, s, path) === null,
    );
    if (!fits) return `${path}: matches none of the allowed shapes`;
  }
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => typeMatches(t, actual))) {
      return `${path}: expected ${types.join(' or ')}, got ${actual}`;
    }
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    return `${path}: must be ${JSON.stringify(schema.const)}`;
  }
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))
  ) {
    return `${path}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`;
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      return `${path}: must be at least ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      return `${path}: must be at most ${schema.maximum}`;
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      return `${path}: must have at least ${schema.minLength} characters`;
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
      return `${path}: must have at most ${schema.maxLength} characters`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      return `${path}: must have at least ${schema.minItems} items`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      return `${path}: must have at most ${schema.maxItems} items`;
    if (typeof schema.items === 'object' && schema.items !== null) {
      for (let i = 0; i < value.length; i += 1) {
        const problem = checkJsonSchema(value[i], schema.items as JsonSchema, `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  if (actual === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const name of (schema.required ?? []) as string[]) {
      if (!(name in obj)) return `${path}: missing required property "${name}"`;
    }
    for (const [name, v] of Object.entries(obj)) {
      const sub = props[name];
      if (sub) {
        const problem = checkJsonSchema(v, sub, `${path}.${name}`);
        if (problem) return problem;
      } else if (schema.additionalProperties === false) {
        return `${path}: unexpected property "${name}"`;
      }
    }
  }
  return null;
}
