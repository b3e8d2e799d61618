/**
 * A service description line of an import: checked like the operator's (name and description
 * rules), skipped when the service is already described so, and never over a description that
 * outranks it (the operator's over the agent's over the catalog's).
 */
import type { ServiceStore } from '../db/index.js';
import { AppError } from '../errors.js';
import { FORMAT, type ServiceLine } from './format.js';
import { type ImportAction, type ImportItem, refuse } from './import-items.js';
import { checkService, refusal } from './record-rules.js';

export function importServiceLine(
  deps: { services: ServiceStore; now: () => number },
  n: number,
  s: ServiceLine,
  dryRun: boolean,
): ImportItem {
  let name: string;
  try {
    name = checkService(s);
  } catch (err) {
    return refuse(n, 'service', refusal(err));
  }
  const current = deps.services.get(name);
  const item = (action: ImportAction, why: string): ImportItem => ({
    line: n,
    action,
    kind: 'service',
    memoryId: null,
    text: `${name}: ${s.description}`,
    why,
  });
  if (
    current?.description === s.description &&
    current.descriptionSource === s.description_source
  ) {
    return item('skipped', `${name} is already described so`);
  }
  const source = s.description_source ?? 'operator';
  if (dryRun) return item('created', `describes ${name} (${source})`);
  const written = deps.services.describe(name, s.description, source, deps.now());
  return written
    ? item('created', `describes ${name} (${source})`)
    : item('skipped', `${name} has a description that outranks this one`);
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; why: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, why: `not JSON (${(err as Error).message})` };
  }
}

/** The header line: the format it must name, and the number of memories it announces. */
export function headerTotal(n: number, text: string): number {
  const parsed = parseJson(text);
  const format =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
      ? (parsed.value as { format?: unknown }).format
      : undefined;
  if (format !== FORMAT) {
    throw new AppError(
      'invalid_input',
      typeof format === 'string' && format.startsWith('watchkeeper-memory/')
        ? `line ${n}: format "${format}" is not one this watchkeeper reads (${FORMAT})`
        : `line ${n}: not a watchkeeper memory export (the first line must be {"format":"${FORMAT}", ...})`,
      { data: { field: 'format' } },
    );
  }
  const count = parsed.ok ? (parsed.value as { memories?: unknown }).memories : undefined;
  return typeof count === 'number' ? count : 0;
}
