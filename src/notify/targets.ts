/**
 * Where notifications go, parsed once at start-up from Apprise-style URLs. The built-in kinds
 * need no Apprise: a JSON webhook (`json://`, `jsons://`, or any plain `https://` URL), ntfy
 * (`ntfy://`, `ntfys://`), Gotify (`gotify://`, `gotifys://`), Slack, Discord and Mattermost
 * incoming webhooks (`slack://A/B/C`, `discord://ID/TOKEN`, `mmost://`, `mmosts://`, or the
 * service's webhook URL as `slack+https://...`, `discord+https://...`, `mattermost+https://...`)
 * and SMTP e-mail (`mailto://`, `mailtos://`). WATCHKEEPER_APPRISE_URLS goes through the `apprise`
 * command when it is installed; without it its URLs are delivered built in, and one of a scheme
 * watchkeeper does not know stops start-up: it is never dropped silently.
 */
import { AppError } from '../errors.js';
import { redactUrl, type RedactOptions, secretParts } from './redact.js';

export type TargetKind =
  'json' | 'ntfy' | 'gotify' | 'slack' | 'discord' | 'mattermost' | 'email' | 'apprise';

export type Endpoint =
  | { kind: 'json' | 'slack' | 'discord' | 'mattermost'; url: string; headers: Headers }
  | { kind: 'ntfy'; url: string; topic: string; headers: Headers }
  | { kind: 'gotify'; url: string; token: string }
  | {
      kind: 'email';
      host: string;
      port: number;
      secure: boolean;
      requireTLS: boolean;
      auth: { user: string; pass: string } | null;
      from: string;
      to: string[];
    }
  | { kind: 'apprise'; url: string };

type Headers = Record<string, string>;

export interface Target {
  /** Stable name of the target in the delivery log: its redacted URL (`#2` on a repeat). */
  key: string;
  /** The URL as it may be shown: every secret part masked. */
  label: string;
  kind: TargetKind;
  via: 'built-in' | 'apprise';
  /** The setting it came from (names, never values, are shown). */
  setting: string;
  /** Every part of the URL that must never be shown; `redact` masks them in any text. */
  secrets: string[];
  endpoint: Endpoint;
}

export const NOTIFY_SETTING = 'WATCHKEEPER_NOTIFY_URLS';
export const APPRISE_SETTING = 'WATCHKEEPER_APPRISE_URLS (CLAUDEOPS_APPRISE_URLS)';

/** Schemes whose host is a server; for every other one the host is a token and is masked. */
const SERVER_HOST = new Set([
  'json',
  'jsons',
  'gotify',
  'gotifys',
  'mmost',
  'mmosts',
  'mailto',
  'mailtos',
  'http',
  'https',
]);

interface Parts {
  scheme: string;
  user: string;
  pass: string;
  host: string;
  /** host[:port], as written. */
  authority: string;
  port: number | null;
  segments: string[];
  query: URLSearchParams;
}

function dec(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function parts(url: string): Parts | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?/i.exec(url);
  if (!m) return null;
  const authority = m[2]!;
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at) : '';
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  // An Apprise host may be a token with a colon in it (`tgram://123:ABC/42`): then no port.
  const hp = /^(\[[^\]]+\]|[^:]*)(?::(\d+))?$/.exec(hostPort) ?? [hostPort, hostPort, undefined];
  const colon = userinfo.indexOf(':');
  return {
    scheme: m[1]!.toLowerCase(),
    user: dec(colon >= 0 ? userinfo.slice(0, colon) : userinfo),
    pass: dec(colon >= 0 ? userinfo.slice(colon + 1) : ''),
    host: hp[1]!,
    authority: hostPort,
    port: hp[2] ? Number(hp[2]) : null,
    segments: m[3]!.split('/').filter(Boolean),
    query: new URLSearchParams(m[4] ?? ''),
  };
}

function basic(user: string, pass: string): Headers {
  return user || pass
    ? { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` }
    : {};
}

/** Why a URL cannot be used; the caller adds which URL of which setting. */
class Refused extends Error {}

function need(ok: boolean, why: string): void {
  if (!ok) throw new Refused(why);
}

function httpBase(secure: boolean, p: Parts, segments: string[]): string {
  const path = segments.map((s) => `/${s}`).join('');
  return `${secure ? 'https' : 'http'}://${p.authority}${path}`;
}

function builtIn(url: string, p: Parts): Endpoint {
  const s = p.scheme;
  const plus = /^(json|slack|discord|mattermost|mmost)\+(https?)$/.exec(s);
  if (plus) {
    const kind = plus[1] === 'mmost' ? 'mattermost' : (plus[1] as 'json' | 'slack' | 'discord');
    return { kind, url: url.slice(plus[1]!.length + 1), headers: basic(p.user, p.pass) };
  }
  switch (s) {
    case 'http':
    case 'https': {
      const host = p.host.toLowerCase();
      const kind =
        host === 'hooks.slack.com'
          ? 'slack'
          : /(^|\.)discord(app)?\.com$/.test(host) && p.segments[1] === 'webhooks'
            ? 'discord'
            : 'json';
      return { kind, url, headers: basic(p.user, p.pass) };
    }
    case 'json':
    case 'jsons': {
      const q = p.query.toString();
      return {
        kind: 'json',
        url: `${httpBase(s === 'jsons', p, p.segments)}${q ? `?${q}` : ''}`,
        headers: basic(p.user, p.pass),
      };
    }
    case 'ntfy':
    case 'ntfys': {
      const token = p.query.get('token') ?? (p.user && !p.pass ? p.user : '');
      const headers = token ? { authorization: `Bearer ${token}` } : basic(p.user, p.pass);
      if (p.segments.length === 0) {
        // ntfy://topic: the public ntfy.sh server, as Apprise reads it.
        need(p.host !== '', 'ntfy needs a topic: ntfy://topic or ntfy://host/topic');
        return { kind: 'ntfy', url: 'https://ntfy.sh/', topic: p.host, headers };
      }
      const topic = p.segments[p.segments.length - 1]!;
      return {
        kind: 'ntfy',
        url: `${httpBase(s === 'ntfys', p, p.segments.slice(0, -1))}/`,
        topic,
        headers,
      };
    }
    case 'gotify':
    case 'gotifys': {
      need(
        p.host !== '' && p.segments.length > 0,
        'gotify needs a host and the application token: gotify://host/TOKEN',
      );
      return {
        kind: 'gotify',
        url: `${httpBase(s === 'gotifys', p, p.segments.slice(0, -1))}/message`,
        token: p.segments[p.segments.length - 1]!,
      };
    }
    case 'discord': {
      need(
        p.host !== '' && p.segments.length >= 1,
        'discord needs the webhook id and token: discord://WEBHOOK_ID/WEBHOOK_TOKEN',
      );
      return {
        kind: 'discord',
        url: `https://discord.com/api/webhooks/${p.host}/${p.segments[0]}`,
        headers: {},
      };
    }
    case 'slack': {
      need(
        p.host !== '' && p.segments.length >= 2 && !p.host.startsWith('xox'),
        "slack needs the incoming webhook's three tokens: slack://TokenA/TokenB/TokenC (a bot token needs the apprise command)",
      );
      return {
        kind: 'slack',
        url: `https://hooks.slack.com/services/${p.host}/${p.segments[0]}/${p.segments[1]}`,
        headers: {},
      };
    }
    case 'mmost':
    case 'mmosts': {
      need(
        p.host !== '' && p.segments.length > 0,
        'mattermost needs a host and the webhook token: mmost://host/TOKEN',
      );
      const token = p.segments[p.segments.length - 1]!;
      return {
        kind: 'mattermost',
        url: `${httpBase(s === 'mmosts', p, p.segments.slice(0, -1))}/hooks/${token}`,
        headers: {},
      };
    }
    case 'mailto':
    case 'mailtos': {
      const server = p.query.get('smtp') ?? p.host;
      need(server !== '', 'mailto needs an SMTP server: mailto://user:pass@host or ?smtp=host');
      const to = (
        p.query.get('to') ?? (p.user && !p.user.includes('@') ? `${p.user}@${p.host}` : '')
      )
        .split(/[\s,;]+/)
        .filter(Boolean);
      need(to.length > 0, 'mailto needs a recipient: ?to=ops@example.com');
      const mode = (p.query.get('mode') ?? '').toLowerCase();
      const port = p.port ?? (s === 'mailto' ? 25 : mode === 'ssl' ? 465 : 587);
      const secure = s === 'mailtos' && (mode === 'ssl' || port === 465);
      const from =
        p.query.get('from') ??
        (p.user.includes('@') ? p.user : p.user ? `${p.user}@${p.host}` : `watchkeeper@${p.host}`);
      return {
        kind: 'email',
        host: server.replace(/^\[|\]$/g, ''),
        port,
        secure,
        requireTLS: s === 'mailtos' && !secure,
        auth: p.user ? { user: p.user, pass: p.pass } : null,
        from,
        to,
      };
    }
    default:
      throw new Refused(`watchkeeper has no built-in delivery for ${s}://`);
  }
}

function keyed(targets: Omit<Target, 'key'>[]): Target[] {
  const seen = new Map<string, number>();
  return targets.map((t) => {
    const n = (seen.get(t.label) ?? 0) + 1;
    seen.set(t.label, n);
    return { ...t, key: n === 1 ? t.label : `${t.label} #${n}` };
  });
}

function redaction(p: Parts | null): RedactOptions {
  if (!p) return { hostIsSecret: true };
  const base = p.scheme.replace(/^[a-z]+\+/, '');
  // ntfy://topic: the host is the topic (on ntfy.sh); ntfy://host/topic: a server.
  if (base === 'ntfy' || base === 'ntfys') return { hostIsSecret: p.segments.length === 0 };
  return { hostIsSecret: !SERVER_HOST.has(base) };
}

export interface TargetSources {
  notifyUrls: readonly string[];
  appriseUrls: readonly string[];
  /** True when the `apprise` command was found on PATH. */
  appriseAvailable: boolean;
}

/** Every target, or AppError `config_invalid` naming the setting, the URL's place and scheme. */
export function buildTargets(src: TargetSources): Target[] {
  const out: Omit<Target, 'key'>[] = [];
  const refuse = (setting: string, i: number, n: number, scheme: string, why: string) =>
    new AppError('config_invalid', `${setting}: URL ${i + 1} of ${n} (${scheme}://): ${why}`, {
      data: { variable: setting.split(' ')[0] },
    });
  const add = (setting: string, urls: readonly string[], viaApprise: boolean) => {
    urls.forEach((url, i) => {
      const p = parts(url);
      const scheme = p?.scheme ?? '?';
      let endpoint: Endpoint;
      if (viaApprise) endpoint = { kind: 'apprise', url };
      else {
        if (!p) throw refuse(setting, i, urls.length, scheme, 'not a URL');
        try {
          endpoint = builtIn(url, p);
        } catch (err) {
          if (!(err instanceof Refused)) throw err;
          const hint =
            setting === APPRISE_SETTING && err.message.startsWith('watchkeeper has no built-in')
              ? `${err.message}, and the apprise command is not installed: install Apprise (pip install apprise) so that \`apprise\` is on PATH, or use a built-in scheme (json, ntfy, gotify, slack, discord, mmost, mailto)`
              : err.message;
          throw refuse(setting, i, urls.length, scheme, hint);
        }
      }
      const opts = redaction(p);
      out.push({
        label: redactUrl(url, opts),
        kind: endpoint.kind,
        via: viaApprise ? 'apprise' : 'built-in',
        setting: setting.split(' ')[0]!,
        secrets: secretParts(url, opts),
        endpoint,
      });
    });
  };
  add(NOTIFY_SETTING, src.notifyUrls, false);
  add(APPRISE_SETTING, src.appriseUrls, src.appriseAvailable);
  return keyed(out);
}
