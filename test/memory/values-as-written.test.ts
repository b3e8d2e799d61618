import { describe, expect, it } from 'vitest';

import {
  extractFacts,
  findContradiction,
  sameValues,
  valueOfOtherSubject,
} from '../../src/memory/index.js';

const facts = (text: string) =>
  extractFacts(text)
    .filter((f) => f.kind !== 'negation')
    .map((f) => `${f.kind}:${f.value}`);

describe('values read as people write them', () => {
  it.each([
    ['restic prune runs daily at 03:00', 'every day at 3am the restic prune job kicks off'],
    ['postgres shared_buffers is set to 2 GB', 'shared_buffers on the db is 2048 MB'],
    [
      'nginx proxy_read_timeout for gitea is 90 seconds',
      'the gitea upstream times out reads after a minute and a half',
    ],
    ['the ups gives about half an hour of runtime', 'battery runtime is roughly 30 min'],
    ['syncthing rescans the photos folder every hour', 'the photos rescan interval is 3600 s'],
    ['the backup runs at 11 pm', 'the backup starts at 23:00'],
    ['the minecraft jvm is started with -Xmx6G', 'minecraft gets six gigabytes of heap'],
    ['postfix message_size_limit is 50 MB', 'postfix rejects messages over 52428800 bytes'],
  ])('"%s" and "%s" state the same values', (a, b) => {
    expect(sameValues(a, b)).toBe(true);
  });

  it('reads a time of day, not a port, after a colon', () => {
    expect(facts('runs at 03:00 and listens on :8080')).toEqual(['time:180', 'port:8080']);
    expect(findContradiction('the dump runs at 02:30', 'the dump runs at 04:00')?.kind).toBe(
      'time',
    );
  });

  it('reads "the first Sunday of the month" as monthly, and a change to every Sunday', () => {
    expect(facts('tank gets scrubbed on the first sunday of the month')).toEqual([
      'frequency:2592000',
    ]);
    expect(
      findContradiction(
        'tank gets scrubbed on the first sunday of the month',
        'zfs scrub on tank was changed to run every sunday',
      )?.kind,
    ).toBe('frequency');
  });

  it('reads "7 daily snapshots" as a count of a kind of snapshot, not how often', () => {
    expect(facts('restic keeps 7 daily snapshots')).toEqual(['number:7']);
    expect(
      valueOfOtherSubject(
        'restic keeps 7 daily snapshots of the home dirs',
        'restic keeps 12 monthly snapshots of the home dirs',
      ),
    ).not.toBeNull();
  });

  it('reads "every 12h", "on sundays" and "every quarter of an hour" as how often', () => {
    expect(facts('kopia snapshots /etc every 12h')).toEqual(['frequency:43200']);
    expect(facts('the copy runs at 02:30 on sundays')).toEqual(['time:150', 'frequency:604800']);
    expect(facts('sonarr checks the feeds every quarter of an hour')).toEqual(['frequency:900']);
    expect(facts('the wordpress db dump is now a nightly job')).toEqual(['frequency:86400']);
    expect(
      findContradiction(
        'rclone copies the photo archive to b2 at 02:30 daily',
        'the rclone b2 copy of the photo archive runs at 02:30 on sundays',
      )?.kind,
    ).toBe('frequency');
  });

  it('reads a number before a unit as a quantity, not a version', () => {
    expect(facts('the local borg repo is about 1.2 TB')).toEqual(['size:1319413953331']);
    expect(facts('unifi runs 8.1.113')).toEqual(['version:8.1.113']);
  });

  it('reads a duration called an interval or a schedule as how often', () => {
    expect(facts('the watchtower poll interval is 86400 seconds')).toEqual(['frequency:86400']);
    expect(facts('nextcloud cron.php runs on a 15 minute schedule')).toEqual(['frequency:900']);
    expect(facts('the heartbeat interval for the vpn endpoint monitor is 5 minutes')).toEqual([
      'frequency:300',
    ]);
    expect(
      findContradiction(
        'syncthing rescans the documents folder every 60 seconds',
        'the documents folder rescan interval in syncthing is now an hour',
      )?.kind,
    ).toBe('frequency');
  });
});

describe('values of one thing and of another', () => {
  it('reads months and years as durations: retention of another bucket is another fact', () => {
    expect(facts('influxdb keeps 2 years')).toEqual(['duration:63072000']);
    expect(
      valueOfOtherSubject(
        'the raw home assistant bucket in influxdb keeps 30 days',
        'the downsampled home assistant bucket in influxdb keeps 2 years',
      ),
    ).not.toBeNull();
  });

  it('reads "after 3 failures" in the clause of its subject', () => {
    expect(
      valueOfOtherSubject(
        'the sshd jail in fail2ban bans after 3 failures',
        'the vaultwarden jail in fail2ban bans after 5 failures',
      ),
    ).not.toBeNull();
  });

  it('reads a version after a verb as the subject’s: another host is another thing', () => {
    expect(
      valueOfOtherSubject(
        'traefik on the staging host runs v2.11',
        'traefik on the prod host runs v3.1',
      ),
    ).not.toBeNull();
    expect(findContradiction('sonarr runs v3', 'sonarr runs v4')?.kind).toBe('version');
  });

  it('tells apart what a verb is said of: the audit logs are not the application logs', () => {
    expect(
      valueOfOtherSubject(
        'loki keeps application logs for 30 days',
        'loki keeps the audit logs for 365 days',
      ),
    ).not.toBeNull();
    expect(
      findContradiction(
        'pihole uses cloudflare 1.1.1.1 as its upstream dns',
        "pihole's upstream is unbound on 127.0.0.1#5335 instead of cloudflare",
      ),
    ).not.toBeNull();
  });

  it('reads how often of one job however it is named', () => {
    expect(
      findContradiction(
        'restic backs up the home directories hourly',
        'restic backups of the home dirs now run once a day',
      )?.kind,
    ).toBe('frequency');
    // Another job of the service is another fact.
    expect(
      valueOfOtherSubject('the zfs scrub runs monthly', 'smart long tests run weekly'),
    ).not.toBeNull();
  });
});

describe('a fact said to have been replaced or ended', () => {
  it.each([
    ['the postgres container runs on nas01', 'postgres was moved off nas01 onto the vm db1'],
    ['the zigbee stick is handled by zha', 'zigbee2mqtt replaced zha as the zigbee integration'],
    [
      'grafana stores its dashboards in a local sqlite file',
      'grafana was migrated from sqlite to the shared postgres instance',
    ],
    [
      'unbound forwards all queries to quad9 over tls',
      'unbound does full recursion itself, the quad9 forward zone was removed',
    ],
    [
      'mosquitto allows anonymous connections on port 1883',
      'anonymous access on mosquitto was turned off, every client needs a password',
    ],
    [
      'jellyfin does its transcoding on the cpu',
      'jellyfin stopped software transcoding and uses vaapi on the igpu',
    ],
    [
      'the cert sync script runs from root’s crontab on the proxy host',
      'the cert sync script was moved to a systemd timer',
    ],
    [
      'portainer manages the containers on docker2',
      'portainer is gone; docker2 runs compose files',
    ],
  ])('"%s" is changed by "%s"', (a, b) => {
    expect(findContradiction(a, b)?.kind).toBe('negation');
  });

  it('is no change of where a thing is when the other already says it went there', () => {
    expect(
      findContradiction('the database lives on db1', 'the database moved to db1 last spring'),
    ).toBeNull();
  });

  it('is no change of what it does not name, nor of a state said in the present', () => {
    expect(
      findContradiction('grafana reads dashboards from git', 'the old loki datasource was removed'),
    ).toBeNull();
    // A pronoun names no fact: "i" shared is no evidence of the same one.
    expect(findContradiction('i run the backups by hand', 'i moved to the new team')).toBeNull();
    expect(
      findContradiction(
        'key expiry is now disabled for servers',
        'servers now have key expiry turned off',
      ),
    ).toBeNull();
  });
});
