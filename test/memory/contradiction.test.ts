import { describe, expect, it } from 'vitest';

import { extractFacts, findContradiction } from '../../src/memory/index.js';

describe('the contradiction rule', () => {
  it.each([
    ['takes 60 s to start', 'takes 5 minutes to start', 'duration'],
    ['listens on port 8096', 'listens on port 8920', 'port'],
    ['runs version 10.8.13', 'runs version 10.9.1', 'version'],
    ['disk alert fires at 85%', 'disk alert fires at 90%', 'percent'],
    ['keeps 7 daily snapshots', 'keeps 14 daily snapshots', 'number'],
    ['cache volume is 20 GB', 'cache volume is 50 GB', 'size'],
    ['restarts cleanly after an upgrade', 'does not restart cleanly after an upgrade', 'negation'],
  ])('"%s" vs "%s" differ in %s', (a, b, kind) => {
    expect(findContradiction(a, b)?.kind).toBe(kind);
  });

  it.each([
    ['takes 60 s to start', 'takes 1 minute to start'],
    ['takes about a minute to start', 'needs roughly a minute before it is up'],
    ['listens on port 8096', 'the web UI is on :8096'],
    ['takes 60 s to start', 'start-up is slow'],
  ])('"%s" and "%s" agree (or one states no value)', (a, b) => {
    expect(findContradiction(a, b)).toBeNull();
  });

  it('reads durations, ports and versions without counting them twice', () => {
    const kinds = extractFacts('v2.4.1 listens on port 443 and restarts in 90s').map((f) => f.kind);
    expect(kinds).toEqual(['version', 'port', 'duration']);
  });
});

describe('the contradiction rule on paraphrases and settings', () => {
  it('reads number words and "a minute", and a left-out detail is no contradiction', () => {
    expect(findContradiction('takes about 60 s to come back', 'needs roughly a minute')).toBeNull();
    expect(
      findContradiction('retries 3 times 20 s apart', 'three retries at 20-second intervals'),
    ).toBeNull();
    expect(
      findContradiction('HTTP 429 when ingestion_rate_mb is 16', 'answers 429 rate limit errors'),
    ).toBeNull();
    expect(findContradiction('two replicas run', 'only one replica runs')?.kind).toBe('number');
    expect(
      findContradiction('migrations run for up to 5 minutes', 'migrations run for up to an hour')
        ?.kind,
    ).toBe('duration');
  });

  it('needs the rest of the sentence alike before a negation or an opposite counts', () => {
    expect(
      findContradiction(
        'elasticsearch will not start without vm.max_map_count set on the host',
        'the host sysctl vm.max_map_count has to be set or elasticsearch fails its checks',
      ),
    ).toBeNull();
    expect(
      findContradiction(
        'key expiry is disabled for the servers',
        'key expiry is enabled for the servers',
      )?.kind,
    ).toBe('negation');
    expect(
      findContradiction('self-heal is on for argocd apps', 'self-heal is off for argocd apps')
        ?.kind,
    ).toBe('negation');
  });

  it('takes the same setting with another value as a contradiction', () => {
    expect(
      findContradiction(
        'SIGNUPS_ALLOWED=false; invitations only',
        'SIGNUPS_ALLOWED=true; anyone can sign up',
      ),
    ).toMatchObject({ kind: 'setting', old: 'signups_allowed=false', new: 'signups_allowed=true' });
  });
});

describe('the contradiction rule on how often', () => {
  it.each([
    ['Backups of postgres run weekly', 'Backups of postgres run monthly'],
    ['The cache is flushed daily', 'The cache is flushed every hour'],
    ['The sync runs every 5 minutes', 'The sync runs every 10 minutes'],
    ['Certificates renew every other day', 'Certificates renew daily'],
    ['Logs rotate twice a day', 'Logs rotate once a week'],
    ['The scrub runs each sunday', 'The scrub runs each night'],
    ['Metrics are pushed every half hour', 'Metrics are pushed each hour'],
    ['The report is mailed twice weekly', 'The report is mailed weekly'],
  ])('"%s" vs "%s" differ in how often', (a, b) => {
    expect(findContradiction(a, b)?.kind).toBe('frequency');
  });

  it.each([
    ['Backups run nightly', 'Backups run every night'],
    ['Backups run weekly', 'Backups run once a week'],
    ['Logs rotate twice a day', 'Logs rotate every 12 hours'],
    ['The sync runs every 5 minutes', 'The sync runs every five minutes and takes a while'],
    ['The check runs every couple of hours', 'The check runs every 2 hours'],
    ['Metrics are pushed every half hour', 'Metrics are pushed every 30 minutes'],
    ['The report is mailed 3 times daily', 'The report is mailed every 8 hours'],
  ])('"%s" and "%s" say the same how often', (a, b) => {
    expect(findContradiction(a, b)).toBeNull();
  });

  it('reads "every 5 minutes" as how often, and a duration beside it as how long', () => {
    expect(
      extractFacts('The sync runs every 5 minutes and takes 2 minutes').map(
        (f) => `${f.kind}:${f.value}`,
      ),
    ).toEqual(['frequency:300', 'duration:120']);
  });
});

describe('a negation counts only of a verb both state', () => {
  it('reads "no longer depends" against "depends" as a change', () => {
    expect(
      findContradiction('The api depends on redis', 'The api no longer depends on redis')?.kind,
    ).toBe('negation');
  });

  it('reads "no longer" as a change whatever verb follows it', () => {
    expect(
      findContradiction(
        'immich stores its database on the shared postgresql',
        'immich no longer uses the shared postgresql; it has its own database container',
      )?.kind,
    ).toBe('negation');
  });

  it('reads "never scheduled" and "stay Pending" as the same fact in other words', () => {
    expect(
      findContradiction('Pods are never scheduled on node3', 'Pods stay Pending on node3'),
    ).toBeNull();
  });
});

describe('values of different things are facts of their own', () => {
  it.each([
    ['a scrub of the tank pool takes nine hours', 'a resilver of a tank disk takes two days'],
    [
      'the jellyfin library scan takes about 20 minutes',
      'a jellyfin restart takes about 60 seconds',
    ],
    ['elasticsearch heap is 4 GB', 'the elasticsearch data disk is 400 GB'],
  ])('"%s" and "%s" do not contradict', (a, b) => {
    expect(findContradiction(a, b)).toBeNull();
  });

  it.each([
    [
      'after an unclean shutdown the web UI lists 0 torrents until the recheck ends',
      'qbittorrent runs at most 5 downloads at once',
    ],
    ['the pool has 6 disks', 'the pool serves 40 clients'],
    // Numbers named by different words: an id and a port, a setting and an image's version.
    [
      'apps reach postgresql through pgbouncer on 6432',
      'postgresql runs as user postgres with uid 999',
    ],
    [
      'postgresql max_connections is 100; nextcloud and gitea share it',
      'major upgrades need a dump and restore; a 16 image on a 15 data directory exits',
    ],
  ])('"%s" and "%s" count different things', (a, b) => {
    expect(findContradiction(a, b)).toBeNull();
  });

  it.each([
    ['restic keeps 7 daily snapshots', 'restic keeps 14 daily snapshots'],
    ['the pool has 6 disks', 'the pool now has 8 disks'],
    ['max_connections is 100', 'max_connections is 300 now'],
    ['sonarr keeps 5 episodes', 'sonarr keeps 10'],
    ['jellyfin listens on 8096', 'jellyfin listens on 8920'],
  ])('"%s" and "%s" count the same thing', (a, b) => {
    expect(findContradiction(a, b)?.kind).toBe('number');
  });

  it.each([
    ['jellyfin takes 60 s to start', "jellyfin's startup now takes 5 minutes"],
    ['the library scan takes 20 minutes', 'the jellyfin library scan takes 45 minutes'],
  ])('"%s" and "%s" still state another value of the same thing', (a, b) => {
    expect(findContradiction(a, b)?.kind).toBe('duration');
  });

  it('reads the subject in the clause that states the value, and a version of the word before it', () => {
    const claim = 'the unifi database is pinned to mongodb 6.0';
    expect(
      findContradiction('mongodb 5 needs AVX, so the unifi database is pinned to 4.4', claim)?.kind,
    ).toBe('version');
    expect(
      findContradiction('the unifi controller runs its own mongodb 4.4 container', claim)?.kind,
    ).toBe('version');
    expect(
      findContradiction(
        'pihole is the DHCP server; if it is down longer than the 24 h lease, clients drop',
        'the pihole DHCP lease is 12 h',
      )?.kind,
    ).toBe('duration');
  });
});

describe('numbers and days as people write them', () => {
  it('reads "1,000" as one thousand', () => {
    expect(
      findContradiction(
        'pihole rate-limits each client to 1000 queries per minute',
        'pihole rate-limits each client to 1,000 queries every 60 seconds',
      ),
    ).toBeNull();
    expect(
      findContradiction('allows 1,000 queries per minute', 'allows 2,000 queries per minute')?.kind,
    ).toBe('number');
  });

  it('reads "every Sunday" as weekly', () => {
    expect(
      findContradiction(
        'pihole updates gravity every Sunday night',
        'pihole updates gravity every night',
      )?.kind,
    ).toBe('frequency');
    expect(
      findContradiction('pihole updates gravity every Sunday', 'pihole updates gravity weekly'),
    ).toBeNull();
  });
});

describe('"no longer" of something the other states', () => {
  it('is a change however differently the rest is worded', () => {
    expect(
      findContradiction(
        'sonarr gets its indexers from prowlarr',
        'sonarr no longer depends on prowlarr; its indexers are configured directly',
      )?.kind,
    ).toBe('negation');
    expect(
      findContradiction(
        'authentik keeps its sessions in redis',
        'authentik no longer needs redis for sessions since the 2025.10 release',
      )?.kind,
    ).toBe('negation');
  });

  it('is no change of a fact it does not name', () => {
    expect(
      findContradiction(
        'grafana reads its dashboards from influxdb',
        'grafana no longer sends alerts by email',
      ),
    ).toBeNull();
  });
});

describe('a fact said to have stopped, in other words than "no longer"', () => {
  it.each([
    ['nextcloud uses redis for file locking', 'nextcloud stopped using redis for file locking'],
    [
      'home assistant talks to the zigbee stick over /dev/ttyUSB0',
      'home assistant does not talk to the zigbee stick directly anymore; zigbee2mqtt does',
    ],
    ['the nightly dump is copied to the nas', "the nightly dump isn't copied to the nas any more"],
  ])('"%s" is changed by "%s"', (a, b) => {
    expect(findContradiction(a, b)).toEqual({ kind: 'negation', old: 'affirmed', new: 'negated' });
  });

  it('is no change of a sentence that already denies it', () => {
    expect(
      findContradiction('the api does not use redis', 'the api does not use redis anymore'),
    ).toBeNull();
  });
});

describe('a negation said in other words', () => {
  it.each([
    [
      'the nas does not spin down its disks while plex is scanning',
      'while plex scans, the nas keeps its disks spinning',
    ],
    [
      'pods without resource limits are not scheduled on the small nodes',
      'the small nodes refuse pods that lack resource limits',
    ],
    [
      "sonarr won't import files that are still being written",
      "files still being written are skipped by sonarr's import",
    ],
    [
      'pihole never blocks the domains on its allowlist',
      'domains on the pihole allowlist are always let through',
    ],
  ])('"%s" and "%s" state the same fact', (a, b) => {
    expect(findContradiction(a, b)).toBeNull();
  });

  it.each([
    ['the nas spins down its disks at night', 'the nas does not spin down its disks at night'],
    [
      'sonarr imports files that are still being written',
      "sonarr won't import files that are still being written",
    ],
    [
      'pihole never blocks the domains on its allowlist',
      'pihole always blocks the domains on its allowlist',
    ],
  ])('"%s" and "%s" still contradict', (a, b) => {
    expect(findContradiction(a, b)?.kind).toBe('negation');
  });
});
