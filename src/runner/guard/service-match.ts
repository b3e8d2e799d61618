/**
 * Service names against targets: a service matches a target when it is the target or a
 * delimited part of it (`media-jellyfin-1`), and a word the guard cannot resolve (a glob, a
 * variable, a substitution) is a pattern that matches a service when any of its expansions
 * would. Pure.
 */
import { type GlobToken, globsIntersect, literalGlob } from './glob.js';

const DELIMITERS = '-_./:@';
const DELIMITER_SET: GlobToken = { t: 'set', negated: false, chars: DELIMITERS, ranges: [] };

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** True when `service` is `target`, or stands as a delimited part of it (media-jellyfin-1). */
export function targetMatches(target: string, service: string): boolean {
  if (target === service) return true;
  return new RegExp(`(^|[-_./:@])${escapeRegExp(service)}($|[-_./:@])`).test(target);
}

/** True when the text mentions `service` as a whole word (opaque code, unknown scripts). */
export function mentions(text: string, service: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9])${escapeRegExp(service)}($|[^A-Za-z0-9])`, 'i').test(text);
}

/**
 * True when some expansion of `pattern` would match `service` by the delimited-part rule, in
 * either direction (the expansion contains the service, or is a delimited part of it). A glob
 * `*` alone does not make a container name out of any service (`cad*` is not `cad-jellyfin`):
 * part of the service must come from the pattern's own letters. An unknown part (a variable)
 * can hold anything, the service's name included.
 */
export function patternMatchesService(pattern: readonly GlobToken[], service: string): boolean {
  const s = literalGlob(service);
  if (globsIntersect(pattern, s)) return true;
  if (delimitedParts(service).some((part) => globsIntersect(pattern, literalGlob(part))))
    return true;
  const free = pattern.some((t) => t.t === 'star' && t.free === true);
  const star: GlobToken = { t: 'star' };
  const forms: [GlobToken[], boolean[]][] = [
    [
      [star, DELIMITER_SET, ...s],
      [false, false, ...s.map(() => true)],
    ],
    [
      [...s, DELIMITER_SET, star],
      [...s.map(() => true), false, false],
    ],
    [
      [star, DELIMITER_SET, ...s, DELIMITER_SET, star],
      [false, false, ...s.map(() => true), false, false],
    ],
  ];
  return forms.some(([form, protect]) => globsIntersect(pattern, form, free ? {} : { protect }));
}

/** Every substring of `name` that starts and ends at a delimiter or an end. */
function delimitedParts(name: string): string[] {
  const starts = [0];
  const ends: number[] = [];
  for (let i = 0; i < name.length; i += 1) {
    if (DELIMITERS.includes(name[i]!)) {
      ends.push(i);
      starts.push(i + 1);
    }
  }
  ends.push(name.length);
  const out: string[] = [];
  for (const a of starts) for (const b of ends) if (b > a) out.push(name.slice(a, b));
  return out;
}
