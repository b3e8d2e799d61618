/** A yes/no field of a form (strings; a checkbox sends `on`) or a JSON body (a boolean). */
import { invalidField } from '../errors.js';

/** The field's value; undefined when absent or empty. */
export function boolField(input: Record<string, unknown>, field: string): boolean | undefined {
  const v = input[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1' || v === 'on') return true;
  if (v === 'false' || v === '0' || v === 'off') return false;
  throw invalidField(field, 'must be true or false');
}
