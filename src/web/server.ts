/** Starting the HTTP server, and the rules about where it may listen. */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { serve } from '@hono/node-server';

import { isLoopback, type WebConfig } from '../config/index.js';
import { AppError } from '../errors.js';

/** The key that signs session cookies, kept in the data folder so sign-ins survive restarts. */
export function loadSecret(dataDir: string): Buffer {
  const path = join(dataDir, 'web-secret');
  try {
    const existing = readFileSync(path);
    if (existing.length >= 32) return existing;
  } catch {
    // created below
  }
  const secret = randomBytes(32);
  writeFileSync(path, secret, { mode: 0o600 });
  chmodSync(path, 0o600);
  return secret;
}

/** Refuses an open dashboard on an address other machines can reach. */
export function checkListenAddress(web: WebConfig): void {
  if (!web.authToken && !web.authUser && !isLoopback(web.host)) {
    throw new AppError(
      'config_invalid',
      `refusing to serve the dashboard on ${web.host} without a credential: set WATCHKEEPER_AUTH_TOKEN ` +
        '(16+ characters; a Claude Ops CLAUDEOPS_CHAT_API_KEY counts as it) or WATCHKEEPER_AUTH_USER ' +
        'and WATCHKEEPER_AUTH_PASSWORD, or listen on 127.0.0.1 (WATCHKEEPER_HOST; the container ' +
        'image listens on 0.0.0.0). README, "Moving from Claude Ops", says why',
    );
  }
}

export interface WebServer {
  url: string;
  close(): Promise<void>;
}

export async function startWebServer(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  web: WebConfig,
): Promise<WebServer> {
  checkListenAddress(web);
  return new Promise<WebServer>((resolve, reject) => {
    const server = serve(
      { fetch: app.fetch, hostname: web.host, port: web.port },
      (info: AddressInfo) => {
        const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${host}:${info.port}/`,
          close: () =>
            new Promise<void>((done) => {
              if ('closeAllConnections' in server)
                (server as { closeAllConnections(): void }).closeAllConnections();
              server.close(() => done());
            }),
        });
      },
    );
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new AppError(
          'io_failed',
          err.code === 'EADDRINUSE'
            ? `cannot listen on ${web.host}:${web.port}: port ${web.port} is in use; set WATCHKEEPER_PORT to a free port (or stop what listens there)`
            : `cannot listen on ${web.host}:${web.port}: ${err.code ?? err.message}`,
          { cause: err },
        ),
      ),
    );
  });
}
