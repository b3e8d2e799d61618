/**
 * Load on one URL of a running server, for the HTTP benchmarks (dashboard, session page,
 * fleet): wrk when installed, autocannon otherwise, 32 connections with the bench token, and a
 * free loopback port to serve on.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';

import autocannon from 'autocannon';

/** The bearer token every HTTP benchmark's server is started with. */
export const TOKEN = 'bench-token-0123456789abcdef';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export const hasWrk = () =>
  new Promise((resolve) =>
    execFile('wrk', ['--version'], (err) => resolve(!err || err.code !== 'ENOENT')),
  );

function ms(value, unit) {
  return Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);
}

/** wrk (C, from Debian) keeps up with the server on 2 cores; autocannon (JS) is the fallback. */
export async function load(url, seconds, tool) {
  if (tool === 'wrk') {
    const out = await new Promise((resolve, reject) =>
      execFile(
        'wrk',
        ['-t1', '-c32', `-d${seconds}s`, '--latency', '-H', `Authorization: Bearer ${TOKEN}`, url],
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      ),
    );
    const pct = (p) => {
      const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
      return m ? ms(m[1], m[2]) : null;
    };
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
    const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const socketErrors = errors ? errors.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
    return {
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
      p50: pct(50),
      p99: pct(99),
      bad: non2xx + socketErrors,
      non2xx,
      timeouts: errors ? Number(errors[4]) : 0,
    };
  }
  return autocannonLoad({ url, connections: 32, duration: seconds });
}

/** autocannon with the bench token, its answer in `load`'s shape. */
async function autocannonLoad(options) {
  const r = await autocannon({ ...options, headers: { Authorization: `Bearer ${TOKEN}` } });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.non2xx + r.errors,
    non2xx: r.non2xx,
    timeouts: r.timeouts,
  };
}

/**
 * A steady load at `rate` requests per second (autocannon, 8 connections): what a team's open
 * dashboards ask, as opposed to `load`, which asks as fast as the server answers.
 */
export function steadyLoad(url, seconds, rate) {
  return autocannonLoad({ url, connections: 8, overallRate: rate, duration: seconds });
}
