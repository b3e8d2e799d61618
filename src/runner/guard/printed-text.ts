/**
 * The text a few printing commands produce, as far as the guard reads them (`printf` with
 * %s-style conversions, `base64 -d`): enough to see a command piped into a shell. Pure.
 */
import { ansiC } from './quoting.js';

export function decodeBase64(text: string): string | null {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact)) return null;
  const decoded = Buffer.from(compact, 'base64').toString('utf8');
  return decoded.includes('\uFFFD') ? null : decoded;
}

/** printf with %s-style conversions filled in order (enough to see a command it prints). */
export function printf(format: string, args: string[]): string {
  const fmt = ansiC(format.replace(/%%/g, '\uE000'));
  let i = 0;
  let out = '';
  do {
    out += fmt.replace(/%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]/g, () => args[i++] ?? '');
  } while (i < args.length && /%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]/.test(fmt));
  return out.replace(/\uE000/g, '%');
}
