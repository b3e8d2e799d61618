/**
 * Receivers on loopback for the notification tests: an HTTP server that records each request
 * (and answers with the statuses it is told, in turn, optionally echoing the request's headers in
 * its answer, as a debugging endpoint or a misconfigured proxy does), an SMTP server (smtp-server, the
 * nodemailer project's own), and a fake `apprise` command: a seam standing in for the Python
 * tool, which records its argv and the config file it was given.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SMTPServer } from 'smtp-server';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
}

export interface HttpReceiver {
  url: string;
  port: number;
  requests: Received[];
  /** Statuses for the next requests, in order; 200 once they run out. */
  respond: number[];
  close(): Promise<void>;
}

export async function httpReceiver(o: { echoHeaders?: boolean } = {}): Promise<HttpReceiver> {
  const requests: Received[] = [];
  const respond: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON
      }
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        text,
        json,
      });
      const status = respond.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' });
      const headers: string[] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        headers.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      const echo = o.echoHeaders ? ` for ${req.method} ${req.url} ${headers.join('\n')}` : '';
      res.end(status === 200 ? 'ok' : `upstream trouble ${status}${echo}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    respond,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export interface MailReceived {
  from: string;
  to: string[];
  user: string | null;
  password: string | null;
  raw: string;
}

export async function smtpReceiver(): Promise<{
  port: number;
  messages: MailReceived[];
  close(): Promise<void>;
}> {
  const messages: MailReceived[] = [];
  const logins = new Map<string, { user: string; password: string }>();
  const server = new SMTPServer({
    // Plain SMTP on loopback: no certificate to trust, and AUTH allowed without TLS.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, session, cb) {
      logins.set(session.id, { user: auth.username ?? '', password: auth.password ?? '' });
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const login = logins.get(session.id);
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: login?.user ?? null,
          password: login?.password ?? null,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return { port, messages, close: () => new Promise((r) => server.close(() => r())) };
}

export interface FakeApprise {
  /** A PATH value with the fake first. */
  path: string;
  /** Each call: its argv and the content of the --config file it was given. */
  calls(): { argv: string[]; config: string }[];
  /** From now on the fake fails (exit 1), printing the URL it was given, as Apprise may. */
  failNext(): void;
  close(): void;
}

/** A fake `apprise` (a seam: the real one is a Python tool this machine need not have). */
export function fakeApprise(): FakeApprise {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-fake-apprise-'));
  const log = join(dir, 'calls.ndjson');
  const script = `#!${process.execPath}
const { appendFileSync, existsSync, readFileSync } = require('node:fs');
const argv = process.argv.slice(2);
const at = argv.find((a) => a.startsWith('--config='));
const config = at ? readFileSync(at.slice('--config='.length), 'utf8') : '';
appendFileSync(${JSON.stringify(log)}, JSON.stringify({ argv, config }) + '\\n');
if (existsSync(${JSON.stringify(join(dir, 'fail'))})) {
  process.stderr.write('could not notify ' + config.trim() + '\\n');
  process.exit(1);
}
`;
  const bin = join(dir, 'apprise');
  writeFileSync(bin, script, { mode: 0o755 });
  chmodSync(bin, 0o755);
  // The fake is CommonJS, whatever package.json a parent folder may hold.
  writeFileSync(join(dir, 'package.json'), '{"type":"commonjs"}');
  return {
    path: `${dir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as { argv: string[]; config: string })
        : [],
    failNext: () => writeFileSync(join(dir, 'fail'), ''),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
