/**
 * The `instance` filter of the Sessions and Events lists: an instance name, as
 * WATCHKEEPER_INSTANCE takes it.
 */
const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export const INSTANCE_PROBLEM =
  'must be an instance name (letters, digits, ".", "_" and "-", at most 63)';

/** The instance to filter on; null when the value is not an instance name; undefined when blank. */
export function parseInstance(raw: string): string | null | undefined {
  if (raw === '') return undefined;
  return INSTANCE_NAME.test(raw) ? raw : null;
}

/** The choices of the instance select: the known instances and the one asked for, by name. */
export function instanceChoices(known: readonly string[], asked: string): string[] {
  const all = new Set(known);
  if (parseInstance(asked)) all.add(asked);
  return [...all].sort();
}
