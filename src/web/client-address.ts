/**
 * Who is on the other end of a request, for the sign-in throttle. The socket address, unless it
 * is a configured trusted proxy: then the rightmost `X-Forwarded-For` hop that is not itself a
 * trusted proxy (a client can write anything to the left of what its proxy appends).
 */
import { BlockList, isIP } from 'node:net';

import type { Context } from 'hono';

import type { AppEnv } from './context.js';

const MAX_HOP_LENGTH = 100;

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) spelled as IPv4. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A matcher for addresses and CIDR ranges as WATCHKEEPER_TRUSTED_PROXIES lists them. */
export function trustedProxies(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const [ip, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(ip, type);
    else list.addSubnet(ip, Number(bits), type);
  }
  return (address) => {
    const a = plain(address);
    const family = isIP(a);
    return family !== 0 && list.check(a, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** The client's address as this server can vouch for it; `unknown` without a socket. */
export function clientAddress(c: Context<AppEnv>, isTrusted: (address: string) => boolean): string {
  const socket = (c.env as AppEnv['Bindings'] | undefined)?.incoming?.socket;
  const peer = socket?.remoteAddress ? plain(socket.remoteAddress) : 'unknown';
  if (!isTrusted(peer)) return peer;
  const hops = (c.req.header('X-Forwarded-For') ?? '')
    .split(',')
    .map((h) => plain(h.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    if (!isTrusted(hops[i]!)) return hops[i]!.slice(0, MAX_HOP_LENGTH);
  }
  // Every hop is a trusted proxy (or there is none): the request came from inside.
  return hops[0] ?? peer;
}

/**
 * The bucket an address counts against: an IPv6 client usually holds a whole /64, so its
 * addresses share one bucket; anything else is its own.
 */
export function addressBucket(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
