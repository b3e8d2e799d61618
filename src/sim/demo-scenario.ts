/**
 * What the simulated model plays in demo mode, one tier per model alias: tier 1 notices a slow
 * service and escalates, tier 2 finds the cause and asks for a restart, tier 3 restarts it until
 * the cooldown blocks it. Memories are repeated run after run, so they are reinforced.
 */
import type { SimBlock, SimRequest, SimScript } from './messages-api.js';

const bash = (command: string, description: string): SimBlock => ({
  type: 'tool_use',
  name: 'Bash',
  input: { command, description },
});
const text = (t: string): SimBlock => ({ type: 'text', text: t });

function tierOf(model: string): 1 | 2 | 3 {
  if (/opus/i.test(model)) return 3;
  if (/sonnet/i.test(model)) return 2;
  return 1;
}

function observe(r: SimRequest): SimBlock[] {
  if (r.turn === 0) {
    return [
      text('Running the health checks from the inventory.'),
      bash(
        "curl -s -o /dev/null -w '%{http_code} %{time_total}s\\n' http://jellyfin:8096/health; " +
          "curl -s -o /dev/null -w '%{http_code} %{time_total}s\\n' http://caddy/health",
        'Check service health endpoints',
      ),
    ];
  }
  return [
    text(
      [
        'caddy is healthy; jellyfin answers, but slowly.',
        '[EVENT:info:caddy] /health returned 200 in 0.04s',
        '[EVENT:warning:jellyfin] /health returned 200 in 2.91s (threshold 1.0s)',
        '[MEMORY:timing:jellyfin] /health takes 2-3s while transcodes are queued; the 1s threshold trips then',
        '[ESCALATE:2] jellyfin health checks are three times over the threshold',
        '',
        'Healthy: caddy. Degraded: jellyfin (slow health checks).',
      ].join('\n'),
    ),
  ];
}

function investigate(r: SimRequest): SimBlock[] {
  if (r.turn === 0) {
    return [
      text('Reading the jellyfin logs on the media host.'),
      bash('ssh media-host docker logs --tail 50 jellyfin', 'Read jellyfin logs'),
    ];
  }
  return [
    text(
      [
        'The transcode queue is stuck behind a worker that stopped reporting progress 40 minutes ago.',
        '[EVENT:warning:jellyfin] 14 transcode jobs queued behind a wedged worker',
        '[MEMORY:remediation:jellyfin] A wedged transcode worker is cleared by restarting the container',
        '[ESCALATE:3] restart jellyfin to clear the wedged transcode worker',
        '',
        'Cause: wedged transcode worker. Ruled out: disk space, network.',
        'Degraded: jellyfin (14 transcode jobs queued).',
      ].join('\n'),
    ),
  ];
}

function remediate(r: SimRequest): SimBlock[] {
  if (r.turn === 0) {
    return [
      text('Restarting jellyfin on the media host.'),
      bash('ssh media-host docker restart jellyfin', 'Restart jellyfin'),
    ];
  }
  const blocked = r.toolResults.some((t) => t.isError && /cooldown/i.test(t.content));
  if (blocked) {
    return [
      text(
        [
          'watchkeeper refused the restart: jellyfin is in its restart cooldown.',
          '[EVENT:critical:jellyfin] Restart blocked by cooldown; the wedged transcode worker needs a human',
          '',
          'Nothing was changed. A human should look at the transcode worker.',
          'Degraded: jellyfin (restart refused by the cooldown).',
        ].join('\n'),
      ),
    ];
  }
  return [
    text(
      [
        'jellyfin restarted and is healthy again.',
        '[COOLDOWN:restart:jellyfin] success - container restarted, healthy after 58s',
        '[EVENT:info:jellyfin] Restarted; /health back to 0.3s and the transcode queue is draining',
        '[MEMORY:timing:jellyfin] Takes about 60s to become healthy after a restart',
        '',
        'Changed: restarted jellyfin. Verified: /health in 0.3s.',
        'Healthy: jellyfin (/health in 0.3s).',
      ].join('\n'),
    ),
  ];
}

export const demoScript: SimScript = (r) => {
  // The CLI sometimes asks for small side answers (titles, summaries) without tools.
  if (!Array.isArray(r.body.tools) || r.body.tools.length === 0) return [text('watchkeeper demo')];
  switch (tierOf(r.model)) {
    case 1:
      return observe(r);
    case 2:
      return investigate(r);
    case 3:
      return remediate(r);
  }
};
