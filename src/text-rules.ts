/**
 * Rules for text that crosses a trust boundary, shared by every layer so that a service name or
 * a piece of text is judged the same way in a marker, the API, a form and the CLI.
 *
 * Pure: no I/O, no imports.
 */

/** Longest service name accepted anywhere (markers, API, forms, CLI, cooldown guard). */
export const MAX_SERVICE_LENGTH = 100;

/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit, 100 characters at most. */
export const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** One spelling everywhere: trimmed and lower-cased. */
export function normaliseServiceName(name: string): string {
  return name.trim().toLowerCase();
}

/**
 * The service name in its stored spelling, or the reason it is refused. An empty name is refused
 * here; callers that allow "no service" decide that before calling.
 */
export function checkServiceName(
  raw: string,
): { ok: true; name: string } | { ok: false; reason: string } {
  const name = normaliseServiceName(raw);
  if (name.length > MAX_SERVICE_LENGTH) {
    return {
      ok: false,
      reason: `is ${name.length} characters, over the limit of ${MAX_SERVICE_LENGTH}`,
    };
  }
  if (!SERVICE_NAME.test(name)) {
    return {
      ok: false,
      reason: `"${printable(raw)}" may hold only letters, digits, ".", "_" and "-"`,
    };
  }
  return { ok: true, name };
}

/** A memory scope other than `ops`: letters, digits, `.`, `_`, `:` and `-`, at most 100. */
export const SCOPE_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/** A scope name as stored (`ops` included), or the reason it is refused. */
export function checkScopeName(
  raw: string,
): { ok: true; name: string } | { ok: false; reason: string } {
  return SCOPE_NAME.test(raw) ? { ok: true, name: raw } : { ok: false, reason: notAScopeName(raw) };
}

export function notAScopeName(raw: string): string {
  return `"${printable(raw)}" is not a scope name: use 1 to 100 letters, digits, ".", "_", ":" and "-"`;
}

// C0 controls except tab and newline, DEL, C1 controls, and the Unicode line/paragraph separators
// and bidi overrides that make stored text render differently from what was written.
/* eslint-disable no-control-regex -- matching control characters is the point */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;
const CONTROL_GLOBAL =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/** The first control character in the text, for a message that names it, or null. */
export function findControlCharacter(text: string): { index: number; code: string } | null {
  const m = CONTROL.exec(text);
  if (!m) return null;
  const cp = m[0].codePointAt(0)!;
  return { index: m.index, code: `U+${cp.toString(16).toUpperCase().padStart(4, '0')}` };
}

/**
 * Model text before it is stored: control characters removed (CR of a CRLF pair included), tab
 * and newline kept. Operator input is refused instead (see findControlCharacter).
 */
export function stripControlCharacters(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROL_GLOBAL, '') : text;
}

/** A short, single-line, control-free rendering of untrusted text for an error message. */
export function printable(text: string, max = 60): string {
  const flat = stripControlCharacters(text.replace(/[\r\n\t]+/g, ' '));
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
