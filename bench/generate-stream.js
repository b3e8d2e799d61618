/**
 * Writes a deterministic, realistic `claude -p --output-format stream-json --verbose` session:
 * a system/init line, many agentic steps (assistant text with occasional EVENT/MEMORY marker
 * lines, Bash tool_use, user tool_result with multi-line command output, now and then in
 * array-of-text-blocks form, and now and then a Task subagent), and a final result line.
 * Shapes follow ../shared/reference/sample-stream-json.ndjson.
 *
 * CLI: node bench/generate-stream.js OUT_FILE [MB] [SEED]
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { createRng } from './prng.js';

export const DEFAULT_SEED = 20261121;

const MODEL = 'claude-sonnet-4-6';
const START_MS = Date.UTC(2026, 10, 21, 3, 0, 0);
const FLUSH_CHARS = 1 << 20;

const SERVICES = [
  'jellyfin',
  'postgres',
  'nginx',
  'redis',
  'grafana',
  'prometheus',
  'home-assistant',
  'nextcloud',
  'vaultwarden',
  'traefik',
  'minio',
  'loki',
  'mosquitto',
  'zigbee2mqtt',
  'immich-server',
  'immich-ml',
  'paperless',
  'sonarr',
  'radarr',
  'qbittorrent',
  'pihole',
  'unifi',
  'gitea',
  'drone-runner',
  'uptime-kuma',
  'syncthing',
  'frigate',
  'node-exporter',
  'cadvisor',
  'alertmanager',
];
const HOSTS = ['atlas', 'borealis', 'cygnus', 'draco'];
const LEVELS = ['INFO', 'INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];
const PATHS = [
  '/api/v1/items',
  '/health',
  '/metrics',
  '/api/sessions',
  '/socket',
  '/static/app.js',
];

const OPENERS = [
  (s) => `Checking ${s} first, since it was the last service flagged by the health probe.`,
  (s) => `The ${s} container has been up for a while; let me look at its recent logs.`,
  (s) => `Next I'll verify that ${s} answers on its health endpoint and that the port is bound.`,
  (s) => `Looking at ${s}: the previous run noted slow start-up, so I'm giving it extra time.`,
  (s) => `Moving on to ${s}. Its dashboards showed a latency spike around 03:10 UTC.`,
];
const FILLERS = [
  'The process is running and memory usage looks stable compared with the last check.',
  'There are a few warnings in the journal, but nothing that indicates a crash loop.',
  'Disk usage on the data volume is at 71%, which is below the alerting threshold.',
  "The restart counter hasn't moved since yesterday, so the earlier fix seems to hold.",
  'Response times are within the usual range; the p95 is roughly 180 ms.',
  "I'll avoid restarting anything here because the cooldown window hasn't expired yet.",
  'Upstream connections are healthy and the TLS certificate is valid for another 54 days.',
  'The queue depth is draining steadily — about 40 jobs per minute — so no action is needed.',
  'CPU is mostly idle; the brief spike lines up with the nightly backup job.',
  'Nothing in the output suggests data loss; the last successful checkpoint was recent.',
];
const EVENT_TEXT = [
  'Health check took 4.8s (threshold 2s)',
  'Container restarted 3 times in the last hour',
  'Disk usage on /var/lib above 85%',
  'Upstream returned 502 for 2% of requests',
  'Certificate expires in 9 days',
  'Replication lag 45s behind primary',
];
const MEMORY_TEXT = [
  'Takes about 60s to become healthy after a restart',
  'Nightly backup at 03:00 UTC causes a 5-minute latency spike',
  'First request after start-up is slow while the cache warms',
  'Log rotation at midnight briefly drops the metrics endpoint',
  'Start-up waits for postgres; restarting it before postgres is ready fails',
];
const LOG_MESSAGES = [
  (r) => `GET ${r.pick(PATHS)}/${r.int(1, 99999)} 200 ${r.int(2, 900)}ms "Mozilla/5.0"`,
  (r) => `connection pool: ${r.int(1, 20)}/20 in use, ${r.int(0, 5)} waiting`,
  (r) => `Slow query (${r.int(500, 9000)} ms): SELECT * FROM "items" WHERE "parent_id" = $1`,
  () => `upstream timed out (110: Connection timed out) while reading response header`,
  (r) => `checkpoint complete: wrote ${r.int(10, 9000)} buffers (${r.int(0, 40)}.${r.int(0, 9)}%)`,
  (r) => `{"level":"info","msg":"request served","status":200,"latency_ms":${r.int(1, 500)}}`,
  (r) => `Scheduled task "Refresh library" completed in ${r.int(1, 300)}s → next run in 6h`,
  (r) => `worker ${r.int(1, 8)}: processed batch ${r.int(1, 99999)}\ttook ${r.int(1, 999)}µs`,
  (r) =>
    `WARN: retrying in ${r.int(1, 30)}s (attempt ${r.int(1, 5)}/5): dial tcp 10.0.${r.int(0, 9)}.${r.int(2, 250)}:5432: connect: connection refused`,
];

/** Writes the stream to `path`; returns what a correct parser must find in it. */
export function generateStream(path, { targetBytes = 200e6, seed = DEFAULT_SEED } = {}) {
  const rng = createRng(seed);
  const sessionId = rng.uuid();
  const fd = openSync(path, 'w');
  const expected = { bytes: 0, lines: 0, steps: 0, markers: 0, arrayResults: 0, subagentLines: 0 };
  let pending = [];
  let pendingChars = 0;
  let clock = START_MS;
  let outputTokens = 0;

  const flush = () => {
    const buf = Buffer.from(pending.join(''), 'utf8');
    writeSync(fd, buf);
    expected.bytes += buf.length;
    pending = [];
    pendingChars = 0;
  };
  const emit = (obj) => {
    const line = `${JSON.stringify(obj)}\n`;
    pending.push(line);
    pendingChars += line.length;
    expected.lines += 1;
    if (pendingChars >= FLUSH_CHARS) flush();
  };

  const assistant = (msgId, block, parent = null) => {
    const out = rng.int(1, 400);
    outputTokens += out;
    if (parent !== null) expected.subagentLines += 1;
    emit({
      type: 'assistant',
      message: {
        id: msgId,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [block],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: rng.int(2, 12),
          cache_creation_input_tokens: rng.int(0, 3000),
          cache_read_input_tokens: rng.int(10000, 90000),
          output_tokens: out,
          service_tier: 'standard',
        },
        context_management: null,
      },
      parent_tool_use_id: parent,
      session_id: sessionId,
      uuid: rng.uuid(),
    });
  };

  const toolResult = (toolUseId, output, { parent = null, isError = false } = {}) => {
    clock += rng.int(500, 20000);
    let content = output;
    if (rng.chance(0.25)) {
      expected.arrayResults += 1;
      content = splitBlocks(output, rng.int(1, 3)).map((text) => ({ type: 'text', text }));
    }
    if (parent !== null) expected.subagentLines += 1;
    emit({
      type: 'user',
      message: {
        role: 'user',
        content: [{ tool_use_id: toolUseId, type: 'tool_result', content, is_error: isError }],
      },
      parent_tool_use_id: parent,
      session_id: sessionId,
      uuid: rng.uuid(),
      timestamp: new Date(clock).toISOString(),
      tool_use_result: {
        stdout: isError ? '' : output,
        stderr: isError ? output : '',
        interrupted: false,
        isImage: false,
        noOutputExpected: false,
      },
    });
  };

  // One agentic step: optional text, a Bash call and its result (or a Task subagent).
  const step = (parent = null) => {
    const msgId = `msg_01${rng.base62(22)}`;
    const svc = rng.pick(SERVICES);
    if (parent !== null || rng.chance(0.75)) {
      const { text, markers } = prose(rng, svc);
      if (parent === null) expected.markers += markers;
      assistant(msgId, { type: 'text', text }, parent);
    }
    const toolId = `toolu_01${rng.base62(22)}`;
    if (parent === null && rng.chance(0.02)) {
      assistant(msgId, {
        type: 'tool_use',
        id: toolId,
        name: 'Task',
        input: {
          description: `Investigate ${svc}`,
          prompt: `Check why ${svc} is slow and report the cause in two sentences.`,
          subagent_type: 'general-purpose',
        },
      });
      for (let i = rng.int(1, 3); i > 0; i -= 1) step(toolId);
      toolResult(toolId, `${svc} is slow because the nightly backup saturates disk I/O.`);
      return;
    }
    const { command, description, output } = bashCall(rng, svc, clock);
    assistant(
      msgId,
      { type: 'tool_use', id: toolId, name: 'Bash', input: { command, description } },
      parent,
    );
    const isError = rng.chance(0.03);
    toolResult(toolId, isError ? `Exit code 1\n${output}` : output, { parent, isError });
    if (parent === null) expected.steps += 1;
  };

  try {
    emit(initLine(sessionId, rng));
    while (expected.bytes + pendingChars < targetBytes) step();
    const finalText = 'All services checked.\n[EVENT:info:jellyfin] Routine check complete';
    expected.markers += 1;
    assistant(`msg_01${rng.base62(22)}`, { type: 'text', text: finalText });
    emit(resultLine(sessionId, finalText, expected.steps, clock - START_MS, outputTokens));
    flush();
  } finally {
    closeSync(fd);
  }
  return expected;
}

function prose(rng, svc) {
  const target = rng.int(200, 900);
  let text = rng.pick(OPENERS)(svc);
  while (text.length < target) text += ` ${rng.pick(FILLERS)}`;
  let markers = 0;
  if (rng.chance(0.15)) {
    text += `\n\n- ${svc}: running\n- ${rng.pick(SERVICES)}: running\n- disk: ${rng.int(40, 95)}%`;
  }
  if (rng.chance(0.2)) {
    text += `\n[EVENT:warning:${svc}] ${rng.pick(EVENT_TEXT)}`;
    markers += 1;
  }
  if (rng.chance(0.1)) {
    text += `\n[MEMORY:timing:${svc}] ${rng.pick(MEMORY_TEXT)}`;
    markers += 1;
  }
  return { text, markers };
}

function bashCall(rng, svc, clock) {
  const host = rng.pick(HOSTS);
  const size = rng.logUniform(300, 40000);
  switch (rng.int(0, 4)) {
    case 0:
      return {
        command: `systemctl status ${svc} --no-pager -n 200`,
        description: `Show ${svc} unit status`,
        output: systemctlHeader(rng, svc) + logLines(rng, svc, host, clock, size),
      };
    case 1:
      return {
        command: `journalctl -u ${svc} --since "1 hour ago" --no-pager | tail -n 400`,
        description: `Recent ${svc} journal`,
        output: logLines(rng, svc, host, clock, size),
      };
    case 2:
      return {
        command: `docker logs --tail 300 ${svc} 2>&1`,
        description: `Tail ${svc} container logs`,
        output: logLines(rng, svc, host, clock, size),
      };
    case 3:
      return {
        command: `curl -sS -m 5 http://${svc}.lan:${rng.int(3000, 9999)}/health`,
        description: `Probe ${svc} health endpoint`,
        output: JSON.stringify(
          { status: 'ok', uptime_s: rng.int(10, 900000), checks: { db: 'ok', cache: 'ok' } },
          null,
          2,
        ),
      };
    default:
      return {
        command: 'docker ps --format "table {{.Names}}\\t{{.Status}}\\t{{.Ports}}"',
        description: 'List running containers',
        output: dockerPs(rng, size),
      };
  }
}

function systemctlHeader(rng, svc) {
  return (
    `● ${svc}.service - ${svc} daemon\n` +
    `     Loaded: loaded (/etc/systemd/system/${svc}.service; enabled; preset: enabled)\n` +
    `     Active: active (running) since Fri 2026-11-20 22:14:03 UTC; 5h ${rng.int(0, 59)}min ago\n` +
    `   Main PID: ${rng.int(300, 90000)} (${svc})\n` +
    `      Tasks: ${rng.int(5, 80)} (limit: 38291)\n` +
    `     Memory: ${rng.int(30, 900)}.${rng.int(0, 9)}M\n` +
    `     CGroup: /system.slice/${svc}.service\n` +
    `             └─${rng.int(300, 90000)} /usr/bin/${svc} --config /etc/${svc}\n\n`
  );
}

function logLines(rng, svc, host, clock, size) {
  const lines = [];
  let length = 0;
  let t = clock - 3_600_000;
  while (length < size) {
    t += rng.int(10, 4000);
    const line = `${new Date(t).toISOString()} ${host} ${svc}[${rng.int(300, 90000)}]: ${rng.pick(LEVELS)} ${rng.pick(LOG_MESSAGES)(rng)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

function dockerPs(rng, size) {
  const lines = ['NAMES\tSTATUS\tPORTS'];
  let length = 0;
  while (length < Math.min(size, 3000)) {
    const line = `${rng.pick(SERVICES)}-${rng.int(1, 3)}\tUp ${rng.int(1, 72)} hours (healthy)\t0.0.0.0:${rng.int(3000, 9999)}->${rng.int(80, 9000)}/tcp`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join('\n');
}

function splitBlocks(text, n) {
  if (n <= 1) return [text];
  const parts = [];
  const step = Math.ceil(text.length / n);
  for (let i = 0; i < text.length; i += step) parts.push(text.slice(i, i + step));
  return parts;
}

function initLine(sessionId, rng) {
  return {
    type: 'system',
    subtype: 'init',
    cwd: '/srv/ops',
    session_id: sessionId,
    tools: ['Task', 'Bash', 'Edit', 'Read', 'Write', 'WebFetch', 'WebSearch', 'TodoWrite'],
    mcp_servers: [],
    model: MODEL,
    permissionMode: 'default',
    slash_commands: ['debug', 'review', 'compact', 'context', 'init'],
    apiKeySource: 'ANTHROPIC_API_KEY',
    claude_code_version: '2.1.197',
    output_style: 'default',
    agents: ['general-purpose', 'Explore', 'Plan'],
    skills: [],
    plugins: [],
    uuid: rng.uuid(),
    fast_mode_state: 'off',
  };
}

function resultLine(sessionId, result, numTurns, durationMs, outputTokens) {
  return {
    type: 'result',
    subtype: 'success',
    is_error: false,
    api_error_status: null,
    duration_ms: durationMs,
    duration_api_ms: Math.round(durationMs * 0.6),
    num_turns: numTurns,
    result,
    stop_reason: 'end_turn',
    session_id: sessionId,
    total_cost_usd: Math.round(outputTokens * 15) / 1e6,
    usage: {
      input_tokens: numTurns * 7,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: outputTokens,
      service_tier: 'standard',
    },
    permission_denials: [],
    terminal_reason: 'completed',
    uuid: '7547ff29-0e6d-4b19-8f01-37459bb1f5d6',
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [out, mb = '200', seed = String(DEFAULT_SEED)] = process.argv.slice(2);
  if (!out) {
    console.error('usage: node bench/generate-stream.js OUT_FILE [MB] [SEED]');
    process.exit(2);
  }
  const expected = generateStream(out, { targetBytes: Number(mb) * 1e6, seed: Number(seed) });
  console.log(JSON.stringify(expected));
}
