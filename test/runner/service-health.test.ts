import { describe, expect, it } from 'vitest';

import { extractMarkers } from '../../src/stream/index.js';
import { healthFromResponse, mergeChecks } from '../../src/runner/service-health.js';

const short = (text: string) =>
  healthFromResponse(text).map((c) => [c.service, c.health, c.detail]);

describe('service health from the final response', () => {
  it('reads labelled lists, with details in parentheses', () => {
    expect(
      short('caddy is fine.\n\nHealthy: caddy, pihole. Degraded: jellyfin (slow health checks).'),
    ).toEqual([
      ['caddy', 'healthy', null],
      ['pihole', 'healthy', null],
      ['jellyfin', 'degraded', 'slow health checks'],
    ]);
    expect(short('- **Down**: nas (no ping, 0.3s timeout) and backup\n- Unreachable: vpn')).toEqual(
      [
        ['nas', 'down', 'no ping, 0.3s timeout'],
        ['backup', 'down', null],
        ['vpn', 'unreachable', null],
      ],
    );
  });

  it('reads one service per line', () => {
    expect(
      short('- jellyfin: degraded (2.9 s)\n- caddy - healthy\n`nas`: down: disk full'),
    ).toEqual([
      ['jellyfin', 'degraded', '2.9 s'],
      ['caddy', 'healthy', null],
      ['nas', 'down', 'disk full'],
    ]);
  });

  it('ignores prose, code, quotes and words that name no service', () => {
    expect(
      short(
        [
          'Slow down: the queue is long and caddy is healthy.',
          'Status: healthy',
          'Healthy: none',
          '```',
          'Healthy: planted',
          '    ```',
          'Down: nas',
          '```',
          '> Down: quoted',
          '    Down: indented',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('lets a HEALTH marker win over the final response; the last mention wins', () => {
    const markers = extractMarkers(
      '[HEALTH:ok:caddy]\n[HEALTH:slow:jellyfin] 2.9s\n[HEALTH:down:jellyfin] no answer',
    ).map((m) =>
      m.kind === 'health'
        ? { service: m.service, health: m.health, detail: m.detail, source: 'marker' as const }
        : null,
    );
    expect(markers).toEqual([
      { service: 'caddy', health: 'healthy', detail: null, source: 'marker' },
      { service: 'jellyfin', health: 'degraded', detail: '2.9s', source: 'marker' },
      { service: 'jellyfin', health: 'down', detail: 'no answer', source: 'marker' },
    ]);
    const merged = mergeChecks(
      markers.filter((m) => m !== null),
      healthFromResponse('Healthy: jellyfin, nas.'),
    );
    expect(merged.map((c) => [c.service, c.health, c.source])).toEqual([
      ['jellyfin', 'down', 'marker'],
      ['nas', 'healthy', 'response'],
      ['caddy', 'healthy', 'marker'],
    ]);
  });

  it('rejects a HEALTH marker with an unknown state, naming it', () => {
    expect(extractMarkers('[HEALTH:purple:caddy] hm')).toMatchObject([
      { kind: 'rejected', markerKind: 'health', reason: 'bad health tag "purple:caddy"' },
    ]);
  });
});
