/**
 * A TCP proxy on loopback in front of the run's PostgreSQL server, for outage tests that must not
 * stop the shared server: `cut()` drops every open connection and closes each new one at once
 * (clients see the connection end, as when a server goes away); `restore()` lets them through
 * again. Only loopback addresses are used.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  cut(): void;
  restore(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let isCut = false;
  const server: Server = createServer((client) => {
    if (isCut) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut() {
      isCut = true;
      for (const s of [...open]) s.destroy();
      open.clear();
    },
    restore() {
      isCut = false;
    },
    get isCut() {
      return isCut;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of [...open]) s.destroy();
        server.close(() => resolve());
      }),
  };
}
