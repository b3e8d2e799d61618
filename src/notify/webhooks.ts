/**
 * The built-in HTTP kinds: the request each service's incoming webhook expects, posted with a
 * deadline. The answer's body is not read as JSON (Slack answers `ok`, Discord 204 No Content);
 * only its status counts. Errors quote the server's answer briefly; the caller redacts them.
 */
import type { Endpoint } from './targets.js';

export interface OutgoingMessage {
  title: string;
  body: string;
  level: 'info' | 'warning' | 'failure';
}

type HttpEndpoint = Extract<
  Endpoint,
  { kind: 'json' | 'slack' | 'discord' | 'mattermost' | 'ntfy' | 'gotify' }
>;

const NTFY_PRIORITY = { info: 3, warning: 4, failure: 5 } as const;
const GOTIFY_PRIORITY = { info: 2, warning: 5, failure: 8 } as const;
const DISCORD_COLOR = { info: 0x3b82f6, warning: 0xf59e0b, failure: 0xef4444 } as const;
const APPRISE_TYPE = { info: 'info', warning: 'warning', failure: 'failure' } as const;

/** URL, headers and JSON body of one notification to one HTTP endpoint. */
export function webhookRequest(
  e: HttpEndpoint,
  m: OutgoingMessage,
): { url: string; headers: Record<string, string>; body: unknown } {
  switch (e.kind) {
    case 'json':
      // Apprise's JSON notification format, so a receiver written for Apprise reads it as is.
      return {
        url: e.url,
        headers: e.headers,
        body: { version: '1.0', title: m.title, message: m.body, type: APPRISE_TYPE[m.level] },
      };
    case 'ntfy':
      // ntfy's JSON publishing: POST to the server root with the topic in the body.
      return {
        url: e.url,
        headers: e.headers,
        body: {
          topic: e.topic,
          title: m.title,
          message: m.body,
          priority: NTFY_PRIORITY[m.level],
          tags: [
            m.level === 'failure'
              ? 'rotating_light'
              : m.level === 'warning'
                ? 'warning'
                : 'information_source',
          ],
        },
      };
    case 'gotify':
      // The token goes in a header, not the query string, so no access log keeps it.
      return {
        url: e.url,
        headers: { 'x-gotify-key': e.token },
        body: { title: m.title, message: m.body, priority: GOTIFY_PRIORITY[m.level] },
      };
    case 'slack':
      return { url: e.url, headers: e.headers, body: { text: `*${m.title}*\n${m.body}` } };
    case 'mattermost':
      return {
        url: e.url,
        headers: e.headers,
        body: { username: 'watchkeeper', text: `#### ${m.title}\n${m.body}` },
      };
    case 'discord':
      return {
        url: e.url,
        headers: e.headers,
        body: {
          username: 'watchkeeper',
          embeds: [
            {
              title: m.title.slice(0, 256),
              description: m.body.slice(0, 4000),
              color: DISCORD_COLOR[m.level],
            },
          ],
        },
      };
  }
}

/** POSTs the JSON body; resolves on a 2xx, throws an Error saying what went wrong otherwise. */
export async function postWebhook(
  req: { url: string; headers: Record<string, string>; body: unknown },
  o: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  const deadline = AbortSignal.timeout(o.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(req.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...req.headers },
      body: JSON.stringify(req.body),
      signal: o.signal ? AbortSignal.any([deadline, o.signal]) : deadline,
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    const name = (err as { name?: string }).name;
    if (name === 'TimeoutError' || (name === 'AbortError' && deadline.aborted)) {
      throw new Error(`no answer within ${Math.round(o.timeoutMs / 1000)}s`);
    }
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `cannot reach the server: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
    );
  }
  if (res.status < 200 || res.status > 299) {
    const head = text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .trim()
      .slice(0, 200);
    throw new Error(`HTTP ${res.status}${head ? `: ${head}` : ''}`);
  }
}
