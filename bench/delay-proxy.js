/**
 * A TCP proxy on loopback that holds every chunk a fixed time in each direction: PostgreSQL "one
 * network hop away" for the fleet bench. It runs in a process of its own (the sidecar's and the
 * bench's synchronous database calls block their own event loops, which must not stall the
 * proxy), started by `startDelayProxy`.
 *
 * Written by hand: the usual ways to delay traffic (`tc netem`, toxiproxy) need root, a kernel
 * module or a binary download, and node's timers round up to whole milliseconds, too coarse for
 * half a millisecond. Here a worker thread keeps the clock: it sleeps in Atomics.wait (which
 * takes fractional milliseconds) until the earliest chunk is due, then tells the main thread to
 * write it; chunks keep their order per direction and nothing spins while none is waiting.
 */
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  isMainThread,
  MessageChannel,
  parentPort,
  receiveMessageOnPort,
  Worker,
  workerData,
} from 'node:worker_threads';

const SELF = fileURLToPath(import.meta.url);

/** The clock thread: releases each queued id at its time (ms on the shared performance clock). */
function clockThread() {
  const { signal, port } = workerData;
  const due = []; // [at, id], in order of `at` (delays are fixed, so arrival order is due order)
  for (;;) {
    // Read before draining: a chunk queued after the drain changes it, so the wait returns.
    const seen = Atomics.load(signal, 0);
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) due.push(m.message);
    const now = performance.timeOrigin + performance.now();
    let released = 0;
    while (released < due.length && due[released][0] <= now) released += 1;
    if (released > 0) parentPort.postMessage(due.splice(0, released).map((d) => d[1]));
    const wait = due.length > 0 ? due[0][0] - now : Infinity;
    if (released === 0 || due.length > 0) Atomics.wait(signal, 0, seen, wait > 0 ? wait : 0);
  }
}

function proxyMain(host, port, delayMs) {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const clock = new Worker(SELF, { workerData: { signal, port: port2 }, transferList: [port2] });
  const waiting = new Map();
  let next = 0;
  clock.on('message', (ids) => {
    for (const id of ids) {
      const release = waiting.get(id);
      waiting.delete(id);
      release?.();
    }
  });
  const hold = (release) => {
    if (delayMs <= 0) return release();
    const id = (next += 1);
    waiting.set(id, release);
    port1.postMessage([performance.timeOrigin + performance.now() + delayMs, id]);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  const pipeDelayed = (from, to) => {
    from.on('data', (chunk) => hold(() => to.writable && to.write(chunk)));
    from.on('end', () => hold(() => to.end()));
  };
  const server = createServer((client) => {
    const upstream = connect(port, host);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    pipeDelayed(client, upstream);
    pipeDelayed(upstream, client);
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
}

/**
 * Starts the proxy in front of `url`'s host and port, holding each chunk `delayMs` per direction;
 * resolves to `url` through the proxy and a stop function.
 */
export async function startDelayProxy(url, delayMs) {
  const target = new URL(url);
  const child = spawn(process.execPath, [SELF, target.hostname, target.port, String(delayMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.once('exit', (code) => reject(new Error(`the delay proxy exited (${code})`)));
  });
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = String(port);
  return {
    url: via.toString(),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGKILL');
      }),
  };
}

if (!isMainThread) clockThread();
else if (process.argv[1] === SELF)
  proxyMain(process.argv[2], Number(process.argv[3]), Number(process.argv[4]));
