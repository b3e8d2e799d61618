/**
 * Notification URLs carry their secrets in every part (a password, a token as the user, a
 * webhook's token in the path, an ntfy topic anyone could subscribe to, `?token=`), so a target
 * is only ever shown through `redactUrl`, and any text that might quote it (an error, a server's
 * answer echoing the request, Apprise's output) through `redact` with the target's secret parts,
 * its credentials in every form (base64 of `user:password` included).
 */
import { MASK, redact, userinfoSecrets } from '../secrets.js';

export { MASK, redact };

/** Query parameters that name where a message goes, not how to get in: shown as they are. */
const PUBLIC_PARAMS = new Set(['to', 'from', 'smtp', 'cc', 'bcc', 'priority', 'format', 'mode']);

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export interface RedactOptions {
  /**
   * The host is a token, not a server (`discord://ID/TOKEN`, `slack://A/B/C`, `ntfy://topic`,
   * and any Apprise scheme watchkeeper does not know): masked too.
   */
  hostIsSecret?: boolean;
}

/** The parts of `url` that must never be shown, raw and decoded, longest first. */
export function secretParts(url: string, o: RedactOptions = {}): string[] {
  const parts = new Set<string>([url]);
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?/i.exec(url);
  if (m) {
    const authority = m[2]!;
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      parts.add(userinfo);
      for (const p of userinfo.split(':')) parts.add(p);
    }
    if (o.hostIsSecret) {
      const host = authority.slice(at + 1);
      parts.add(host);
      for (const p of host.split(':')) parts.add(p);
    }
    for (const segment of m[3]!.split('/')) parts.add(segment);
    for (const pair of (m[4] ?? '').slice(1).split('&')) {
      const [name = '', value = ''] = pair.split('=');
      if (!PUBLIC_PARAMS.has(decode(name).toLowerCase())) parts.add(value);
    }
  }
  const all = [...parts].flatMap((p) => [p, decode(p)]);
  all.push(...userinfoSecrets(url, { userIsSecret: true }));
  // Two-character pieces (a port-like path, "v1") would mask half of every message: the whole
  // URL still hides them where they appear in it.
  return [...new Set(all)].filter((p) => p.length >= 3).sort((a, b) => b.length - a.length);
}

/**
 * How a target is shown: scheme, host and port; the user, the password, every path segment and
 * every query value except the public ones masked. `ntfys://tk_x@ntfy.example/alerts` becomes
 * `ntfys://***@ntfy.example/***`.
 */
export function redactUrl(url: string, o: RedactOptions = {}): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?/i.exec(url);
  if (!m) return MASK;
  const [, scheme, authority = '', path = '', query] = m;
  const at = authority.lastIndexOf('@');
  const server = o.hostIsSecret ? MASK : authority.slice(at + 1);
  const host = at >= 0 ? `${MASK}@${server}` : server;
  const shownPath = path
    .split('/')
    .map((s) => (s === '' ? s : MASK))
    .join('/');
  const shownQuery = query
    ? `?${query
        .slice(1)
        .split('&')
        .map((pair) => {
          const [name = '', value] = pair.split('=');
          return value === undefined || PUBLIC_PARAMS.has(decode(name).toLowerCase())
            ? pair
            : `${name}=${MASK}`;
        })
        .join('&')}`
    : '';
  return `${scheme!.toLowerCase()}://${host}${shownPath}${shownQuery}`;
}
