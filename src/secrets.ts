/**
 * The credentials inside configured URLs (`scheme://user:password@host`), in every form a text
 * may quote them: as written, percent-decoded and percent-encoded, and as the `Authorization:
 * Basic` value built from them (base64 and base64url of `user:password`, with and without
 * padding), plus the JSON-escaped form of each, for a log line already serialised. They are
 * collected once from the configuration; `redact` is the one function every output edge applies
 * (the logger, a stored delivery response, the pages and the API).
 */
import type { Config } from './config/index.js';

/** What `redact` puts where a secret was. */
export const MASK = '***';

/** Shorter pieces would mask half of every text (a port, "v1"). */
const MIN_LENGTH = 3;

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function base64Forms(text: string): string[] {
  const b64 = Buffer.from(text, 'utf8').toString('base64');
  const url = Buffer.from(text, 'utf8').toString('base64url');
  return [b64, b64.replace(/=+$/, ''), url];
}

/** `user:password` as written in `url`, or null when it has none. */
export function userinfoOf(url: string): string | null {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  const authority = m?.[1] ?? '';
  const at = authority.lastIndexOf('@');
  return at > 0 ? authority.slice(0, at) : null;
}

export interface UserinfoOptions {
  /**
   * The user alone is a secret too (a token written as the user: `ntfy://tk_x@host`). Otherwise
   * a user name without a password (`postgres://wk@db/...`) is shown like any other word.
   */
  userIsSecret?: boolean;
}

/** Every form of the userinfo of `url` that must never be shown, longest first. */
export function userinfoSecrets(url: string, o: UserinfoOptions = {}): string[] {
  const userinfo = userinfoOf(url);
  if (userinfo === null) return [];
  const colon = userinfo.indexOf(':');
  const user = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
  const password = colon >= 0 ? userinfo.slice(colon + 1) : '';
  if (password === '' && !o.userIsSecret) return [];
  const forms = new Set<string>();
  const addText = (text: string) => {
    for (const t of [text, decoded(text), encodeURIComponent(decoded(text))]) forms.add(t);
  };
  addText(password);
  addText(userinfo);
  if (o.userIsSecret) addText(user);
  // What a Basic authorization header carries: `user:password`, from the URL as written or
  // decoded (the form the notification targets send).
  for (const pair of [userinfo, `${decoded(user)}:${decoded(password)}`]) {
    for (const b of base64Forms(pair)) forms.add(b);
  }
  return finish(forms);
}

/** The forms given, their JSON-escaped forms beside them, long enough to mask, longest first. */
function finish(forms: Iterable<string>): string[] {
  const all = new Set<string>();
  for (const f of forms) {
    all.add(f);
    all.add(JSON.stringify(f).slice(1, -1));
  }
  return [...all].filter((s) => s.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
}

/** The configuration's URLs that may carry credentials. */
export type SecretSources = {
  notifications: Pick<Config['notifications'], 'notifyUrls' | 'appriseUrls'>;
  fleet: Pick<Config['fleet'], 'databaseUrl'>;
  gateway: Pick<Config['gateway'], 'url'>;
  embeddings: Pick<Config['embeddings'], 'url'>;
};

const collected = new WeakMap<SecretSources, readonly string[]>();

/**
 * The secrets of every configured URL with userinfo (notification and Apprise targets, the
 * fleet's database, the gateway's and the embeddings' endpoints), collected once per
 * configuration.
 */
export function configSecrets(config: SecretSources): readonly string[] {
  const known = collected.get(config);
  if (known) return known;
  const forms = new Set<string>();
  const add = (urls: readonly (string | null)[], o: UserinfoOptions) => {
    for (const url of urls) if (url) for (const s of userinfoSecrets(url, o)) forms.add(s);
  };
  // A notification URL's user is a token as often as a name (ntfy, Pushover, a webhook's user).
  add([...config.notifications.notifyUrls, ...config.notifications.appriseUrls], {
    userIsSecret: true,
  });
  add([config.fleet.databaseUrl, config.gateway.url, config.embeddings.url], {});
  const out = finish(forms);
  collected.set(config, out);
  return out;
}

/**
 * `text` with every occurrence of each secret replaced by the mask, the longest first (so that
 * a password inside a longer form does not leave the rest of that form behind).
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  const longestFirst = [...secrets].sort((a, b) => b.length - a.length);
  for (const s of longestFirst) {
    if (s.length >= MIN_LENGTH && out.includes(s)) out = out.split(s).join(MASK);
  }
  return out;
}
