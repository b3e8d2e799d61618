/**
 * The lines of an MCP memory file: an entity or a relation, checked field by field, and the
 * key each observation and relation is remembered as imported under.
 */
import { createHash } from 'node:crypto';

export function key(...parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export interface Entity {
  n: number;
  name: string;
  entityType: string;
  observations: string[];
}

export interface Relation {
  n: number;
  from: string;
  to: string;
  relationType: string;
}

export function asEntity(n: number, v: Record<string, unknown>): Entity | string {
  if (typeof v.name !== 'string' || v.name.trim() === '') return 'name: a text is required';
  if (typeof v.entityType !== 'string') return 'entityType: a text is required';
  if (!Array.isArray(v.observations) || v.observations.some((o) => typeof o !== 'string'))
    return 'observations: a list of texts is required';
  return {
    n,
    name: v.name.trim(),
    entityType: v.entityType,
    observations: v.observations as string[],
  };
}

export function asRelation(n: number, v: Record<string, unknown>): Relation | string {
  for (const f of ['from', 'to', 'relationType'] as const) {
    const x = v[f];
    if (typeof x !== 'string' || x.trim() === '') return `${f}: a text is required`;
    if (f === 'relationType' && x.length > 200) return `${f}: over 200 characters`;
  }
  return {
    n,
    from: (v.from as string).trim(),
    to: (v.to as string).trim(),
    relationType: (v.relationType as string).trim(),
  };
}
