/**
 * Writes a deterministic, realistic Claude Code transcript (`~/.claude/projects/<p>/<id>.jsonl`)
 * of a long ops session: user prompts, the model's text one content block a line (questions,
 * decisions, problems, fixes, background, now and then a marker line or a code block), Bash
 * calls and their multi-line output, metadata lines Claude Code writes (titles, snapshots), and
 * topic changes by transition and by pause. Shapes follow
 * ../shared/reference/claude-code-formats.md section 4.
 *
 * CLI: node bench/generate-transcript.js OUT_FILE [LINES] [SEED]
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { createRng } from './prng.js';

export const DEFAULT_TRANSCRIPT_SEED = 20261204;

const START_MS = Date.UTC(2026, 11, 4, 8, 0, 0);
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
  'immich-server',
  'paperless',
  'gitea',
  'caddy',
  'restic',
  'syncthing',
  'frigate',
];
const FILES = [
  'docker-compose.yml',
  'src/db/open.ts',
  'config/nginx.conf',
  'scripts/backup.sh',
  '/etc/caddy/Caddyfile',
  'README.md',
  'src/graph/indexer.ts',
  'deploy/values.yaml',
];
const PROMPTS = [
  (s, r) => `Can you check why ${s} is slow since the upgrade to ${r.int(2, 9)}.${r.int(0, 20)}?`,
  (s) => `What is the backup window for ${s} right now, and should we move it?`,
  (s) => `${s} keeps failing health checks after the restart. Please look into it.`,
  (s, r) => `We need to plan the migration of ${s} to the new host before ${r.int(1, 28)} March.`,
  (s) => `Let's move on to ${s}: the dashboards show a latency spike every night.`,
  (s, r) =>
    `Back to ${s}. I think we should keep ${r.int(2, 8)} replicas instead of ${r.int(1, 3)}.`,
  (s, r) => `How much disk does ${s} use on the data volume, and is ${r.int(60, 95)}% too much?`,
  (s) => `Additionally, please document the ${s} restart order in README.md.`,
];
const SAY = [
  (s, r) =>
    `We decided to run the nightly ${s} backup at 0${r.int(1, 5)}:00 instead of midnight, because the cache warm-up collides with it.`,
  (s) => `The problem is that ${s} fails to bind its port when the old container is still up.`,
  (s, r) =>
    `Fixed by raising the ${s} connection pool from ${r.int(5, 20)} to ${r.int(21, 80)}; the errors stopped right after.`,
  (s) => `Should we switch ${s} to the DNS-01 challenge so renewals stop depending on port 80?`,
  (s, r) =>
    `It turns out the ${s} latency spike lines up with log rotation at ${r.int(0, 23)}:00, which means the metrics endpoint drops briefly.`,
  (s) => `We still need to add an alert for ${s} when the queue depth stays above the threshold.`,
  (s, r) =>
    `The ${s} container has been up for ${r.int(2, 90)} hours and memory usage looks stable compared with the last check.`,
  (s, r) =>
    `Disk usage on the ${s} volume is at ${r.int(40, 95)}%, below the alerting threshold, and the restart counter has not moved since yesterday.`,
  (s, r) =>
    `Changed the ${s} retention from ${r.int(7, 30)} days to ${r.int(31, 90)} days in ${r.pick(FILES)}, as agreed.`,
  (s) => `I'm not sure the ${s} upgrade is safe yet; maybe we wait for the next point release.`,
  (s) =>
    `Upstream connections to ${s} are healthy and the TLS certificate is valid for another month.`,
  (s, r) =>
    `Response times for ${s} are within the usual range; the p95 is roughly ${r.int(90, 400)} ms.`,
];
const NARRATION = [
  (s) => `Let me check the ${s} logs.`,
  (s) => `Checking ${s} now.`,
  () => 'Let me look at the compose file.',
];
const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARN', 'ERROR'];

/** Lines of `claude` transcript text for one model message (one text block). */
function prose(rng, svc) {
  const parts = [];
  for (let n = rng.int(1, 4); n > 0; n -= 1) parts.push(rng.pick(SAY)(svc, rng));
  let text = parts.join(' ');
  if (rng.chance(0.25)) {
    text += `\n\n- ${svc}: running\n- ${rng.pick(SERVICES)}: ${rng.pick(['running', 'degraded'])}\n- **disk**: ${rng.int(40, 95)}%`;
  }
  if (rng.chance(0.15)) {
    text += `\n\n\`\`\`sh\ndocker compose restart ${svc}\ndocker logs --tail 50 ${svc}\n\`\`\``;
  }
  if (rng.chance(0.1)) text += `\n[MEMORY:timing:${svc}] Takes about 60s to become healthy`;
  return text;
}

function toolOutput(rng, svc, clock) {
  const lines = [];
  let t = clock - 600_000;
  for (let n = rng.logUniform(3, 120); n > 0; n -= 1) {
    t += rng.int(10, 4000);
    lines.push(
      `${new Date(t).toISOString()} ${svc}[${rng.int(300, 90000)}]: ${rng.pick(LEVELS)} request served in ${rng.int(1, 900)}ms (pool ${rng.int(1, 20)}/20)`,
    );
  }
  return lines.join('\n');
}

/**
 * Writes `lines` transcript lines to `path`; returns what it wrote (lines, user prompts, text
 * blocks). Deterministic for a seed.
 */
export function generateTranscript(path, { lines = 40_000, seed = DEFAULT_TRANSCRIPT_SEED } = {}) {
  const rng = createRng(seed);
  const sessionId = rng.uuid();
  const out = [];
  const stats = { lines: 0, prompts: 0, textBlocks: 0, toolCalls: 0 };
  let clock = START_MS;
  let parent = null;
  const common = () => ({
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd: '/srv/homelab',
    sessionId,
    version: '2.1.197',
    gitBranch: 'main',
  });
  const emit = (entry) => {
    const uuid = rng.uuid();
    out.push(
      JSON.stringify({ ...common(), ...entry, uuid, timestamp: new Date(clock).toISOString() }),
    );
    parent = uuid;
  };
  const assistant = (block) => {
    clock += rng.int(500, 8000);
    emit({
      type: 'assistant',
      requestId: `req_01${rng.base62(22)}`,
      message: {
        model: 'claude-sonnet-4-6',
        id: `msg_01${rng.base62(22)}`,
        type: 'message',
        role: 'assistant',
        content: [block],
        stop_reason: null,
        usage: { input_tokens: rng.int(2, 12), output_tokens: rng.int(1, 400) },
      },
    });
  };

  out.push(JSON.stringify({ type: 'summary', summary: 'Homelab upkeep', leafUuid: rng.uuid() }));
  while (out.length < lines) {
    const svc = rng.pick(SERVICES);
    // A pause now and then ends the topic (over two hours).
    clock += rng.chance(0.03) ? 3 * 3600_000 : rng.int(20_000, 600_000);
    emit({
      type: 'user',
      promptId: rng.uuid(),
      message: { role: 'user', content: rng.pick(PROMPTS)(svc, rng) },
      permissionMode: 'default',
    });
    stats.prompts += 1;
    for (let step = rng.int(2, 8); step > 0 && out.length < lines; step -= 1) {
      if (rng.chance(0.7)) {
        const narration = rng.chance(0.2);
        assistant({
          type: 'text',
          text: narration ? rng.pick(NARRATION)(svc) : prose(rng, svc),
        });
        stats.textBlocks += 1;
      }
      const toolId = `toolu_01${rng.base62(22)}`;
      assistant({
        type: 'tool_use',
        id: toolId,
        name: 'Bash',
        input: { command: `docker logs --tail 200 ${svc}`, description: `Tail ${svc} logs` },
      });
      clock += rng.int(200, 20_000);
      const output = toolOutput(rng, svc, clock);
      emit({
        type: 'user',
        message: {
          role: 'user',
          content: [{ tool_use_id: toolId, type: 'tool_result', content: output, is_error: false }],
        },
        toolUseResult: { stdout: output, stderr: '', interrupted: false, isImage: false },
      });
      stats.toolCalls += 1;
    }
    if (rng.chance(0.05)) {
      out.push(
        JSON.stringify({ type: 'file-history-snapshot', messageId: rng.uuid(), snapshot: {} }),
      );
    }
  }
  out.length = Math.min(out.length, lines);
  writeFileSync(path, `${out.join('\n')}\n`);
  stats.lines = out.length;
  return stats;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, lines = '40000', seed = String(DEFAULT_TRANSCRIPT_SEED)] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/generate-transcript.js OUT_FILE [LINES] [SEED]');
    process.exit(2);
  }
  console.log(generateTranscript(file, { lines: Number(lines), seed: Number(seed) }));
}
