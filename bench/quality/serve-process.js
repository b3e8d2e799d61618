/**
 * One `watchkeeper serve` process on a data folder, as a user starts it (schedule and gateway
 * off, a bearer token), and its JSON API: the retrieval bench asks every question through it so
 * that it measures the routes and options a user gets.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath, URLSearchParams } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));
const TOKEN = 'bench-quality-token-0123456789';

/** The environment of every process of the bench: this data folder, these embeddings. */
export function benchEnv(dataDir, embeddings) {
  return {
    PATH: process.env.PATH,
    HOME: dataDir,
    WATCHKEEPER_DATA_DIR: dataDir,
    WATCHKEEPER_EMBEDDINGS: embeddings,
    // A busy machine must not turn the model's answers into lexical fallbacks (the 10 s default).
    WATCHKEEPER_EMBEDDINGS_TIMEOUT: '10m',
    WATCHKEEPER_SCHEDULE: 'off',
    WATCHKEEPER_GATEWAY: 'off',
  };
}

// A bench that ends early (a part threw, a step failed) leaves no serve behind.
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** The dashboard's address in serve's "watchkeeper serving" log line, once it is written. */
function servingAddress(text) {
  for (const line of text.split('\n')) {
    const start = line.indexOf('{"level":');
    if (start < 0) continue;
    try {
      const entry = JSON.parse(line.slice(start));
      if (entry.msg === 'watchkeeper serving') return String(entry.dashboard).replace(/\/$/, '');
    } catch {
      // a line still being written
    }
  }
  return null;
}

export async function startServe(dataDir, embeddings) {
  // Port 0: serve binds a free port itself and logs it. A port picked here and handed over could
  // be taken meanwhile by another process (a test's server), which would then answer instead.
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...benchEnv(dataDir, embeddings),
      WATCHKEEPER_PORT: '0',
      WATCHKEEPER_AUTH_TOKEN: TOKEN,
      WATCHKEEPER_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let log = '';
  let address = null;
  let pending = '';
  child.stderr.on('data', (d) => {
    const text = d.toString();
    log = (log + text).slice(-4000);
    if (address !== null) return;
    pending += text;
    address = servingAddress(pending);
    if (address !== null) pending = '';
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  void exited.then(() => running.delete(child));
  for (let i = 0; address === null; i += 1) {
    if (child.exitCode !== null) throw new Error(`serve exited at start:\n${log}`);
    if (i > 600) throw new Error(`serve never said where it serves:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const base = `${address}/api/v1`;

  /** A JSON body, or a string sent as it is with `type`. */
  async function api(method, path, body, type = 'application/json') {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        ...(body !== undefined ? { 'Content-Type': type } : {}),
      },
      ...(body !== undefined
        ? { body: typeof body === 'string' ? body : JSON.stringify(body) }
        : {}),
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text === '' ? null : JSON.parse(text);
  }

  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) throw new Error(`serve exited at start:\n${log}`);
    try {
      await api('GET', '/health');
      break;
    } catch (err) {
      if (i > 600) throw new Error(`serve did not answer: ${err.message}\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    api,
    /** Waits until the search answers by meaning (the model loaded in the background). */
    async untilHybrid(probe) {
      for (let i = 0; i < 1200; i += 1) {
        const a = await api('GET', `/memories/search?q=${encodeURIComponent(probe)}&limit=1`);
        if (a.mode === 'hybrid') return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`serve never searched by meaning:\n${log}`);
    },
    /**
     * GET with query parameters (a repeated one as an array). With the model, an answer that
     * fell back to words alone is an error: its figure would not be the model's.
     */
    async get(path, params) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(params))
        for (const one of [v].flat()) if (one !== undefined) q.append(k, String(one));
      const answer = await api('GET', `${path}?${q}`);
      if (embeddings !== 'off' && answer.mode !== 'hybrid')
        throw new Error(`${path} answered by words alone (${answer.mode}): the model failed`);
      return answer;
    },
    async close() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
