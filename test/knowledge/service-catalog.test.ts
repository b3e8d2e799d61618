import { describe, expect, it } from 'vitest';

import {
  CATALOG_KINDS,
  catalogKey,
  imageKey,
  lookupCatalog,
  SERVICE_CATALOG,
} from '../../src/knowledge/service-catalog.js';
import { SERVICE_NAME } from '../../src/text-rules.js';

const nameOf = (text: string) => lookupCatalog(text)?.name ?? null;

describe('the service catalog data', () => {
  it('holds a few hundred entries', () => {
    expect(SERVICE_CATALOG.length).toBeGreaterThanOrEqual(300);
  });

  it('spells every name and alias as a stored service name would be spelled', () => {
    const bad: string[] = [];
    for (const entry of SERVICE_CATALOG) {
      for (const spelling of [entry.name, ...entry.aliases]) {
        if (!SERVICE_NAME.test(spelling) || spelling !== spelling.toLowerCase()) bad.push(spelling);
      }
    }
    expect(bad).toEqual([]);
  });

  it('gives no name or alias to two entries, however it is delimited', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const entry of SERVICE_CATALOG) {
      for (const spelling of new Set([entry.name, ...entry.aliases].map(catalogKey))) {
        const other = owner.get(spelling);
        if (other !== undefined && other !== entry.name) {
          clashes.push(`${spelling}: ${other} and ${entry.name}`);
        }
        owner.set(spelling, entry.name);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('gives no image to two entries once the registry is set aside', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const entry of SERVICE_CATALOG) {
      for (const image of entry.images) {
        const key = imageKey(image);
        if (key === null || image !== image.toLowerCase() || /[@\s]|:[^/]*$/.test(image)) {
          clashes.push(`${entry.name}: "${image}" is not an image name without tag`);
          continue;
        }
        const other = owner.get(key);
        if (other !== undefined && other !== entry.name) {
          clashes.push(`${key}: ${other} and ${entry.name}`);
        }
        owner.set(key, entry.name);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('describes each entry in one line of plain words and files it under a known kind', () => {
    const bad = SERVICE_CATALOG.filter(
      (e) =>
        !(CATALOG_KINDS as readonly string[]).includes(e.kind) ||
        e.description.length < 15 ||
        e.description.length > 160 ||
        /[\r\n]/.test(e.description) ||
        e.description.endsWith('.'),
    ).map((e) => e.name);
    expect(bad).toEqual([]);
  });

  it('puts the operator words on the services they name', () => {
    expect(lookupCatalog('jellyfin')?.description).toMatch(/media server/);
    expect(lookupCatalog('caddy')?.description).toMatch(/reverse proxy/);
    expect(lookupCatalog('postgresql')?.description).toMatch(/database/);
  });
});

describe('lookupCatalog', () => {
  it('finds an entry by its name or an alias, in any case', () => {
    expect(nameOf('jellyfin')).toBe('jellyfin');
    expect(nameOf('  Jellyfin ')).toBe('jellyfin');
    expect(nameOf('postgres')).toBe('postgresql');
    expect(nameOf('pg')).toBe('postgresql');
    expect(nameOf('Home-Assistant')).toBe('home-assistant');
    expect(nameOf('hass')).toBe('home-assistant');
  });

  it('reads underscores and dots as hyphens', () => {
    expect(nameOf('node_exporter')).toBe('node-exporter');
    expect(nameOf('home_assistant')).toBe('home-assistant');
    expect(nameOf('rocket.chat')).toBe('rocketchat');
  });

  it('finds an entry by its image, with or without tag, digest or registry', () => {
    expect(nameOf('jellyfin/jellyfin')).toBe('jellyfin');
    expect(nameOf('jellyfin/jellyfin:10.9.11')).toBe('jellyfin');
    expect(nameOf('lscr.io/linuxserver/jellyfin:latest')).toBe('jellyfin');
    expect(nameOf('ghcr.io/linuxserver/jellyfin')).toBe('jellyfin');
    expect(nameOf('docker.io/library/postgres:16-alpine')).toBe('postgresql');
    expect(nameOf('postgres:16')).toBe('postgresql');
    expect(nameOf(`prom/prometheus@sha256:${'a'.repeat(64)}`)).toBe('prometheus');
    expect(nameOf('registry.example.com:5000/caddy:2.8')).toBe('caddy');
    expect(nameOf('eclipse-mosquitto:2')).toBe('mosquitto');
  });

  it('names an unlisted image by its last path part', () => {
    expect(nameOf('ghcr.io/someone/radarr:nightly')).toBe('radarr');
    expect(nameOf('registry.local/team/jellyfin-custom:1')).toBe('jellyfin');
  });

  it('finds the service inside a container or pod name', () => {
    expect(nameOf('media-jellyfin-1')).toBe('jellyfin');
    expect(nameOf('/media-jellyfin-1')).toBe('jellyfin');
    expect(nameOf('media_jellyfin_1')).toBe('jellyfin');
    expect(nameOf('coredns-5d78c9869d-abcde')).toBe('coredns');
  });

  it('prefers the longest known part, then the last one', () => {
    // Longest: a part that names ingress-nginx beats the nginx inside it.
    expect(nameOf('ingress-nginx-controller-7d9f8b6c5-x2x7z')).toBe('ingress-nginx');
    expect(nameOf('monitoring-node-exporter-1')).toBe('node-exporter');
    expect(nameOf('paperless-ngx-webserver-1')).toBe('paperless-ngx');
    // Last: compose names a container project-service-N.
    expect(nameOf('immich_postgres')).toBe('postgresql');
    expect(nameOf('paperless-redis-1')).toBe('redis');
  });

  it('takes a two-letter alias as a whole name only', () => {
    expect(nameOf('ha')).toBe('home-assistant');
    expect(nameOf('ha-cluster')).toBeNull();
  });

  it('answers null for names it does not know', () => {
    expect(nameOf('')).toBeNull();
    expect(nameOf('   ')).toBeNull();
    expect(nameOf('my-custom-app')).toBeNull();
    expect(nameOf('jellyfinish')).toBeNull();
    expect(nameOf('someone/unknown-thing:1.0')).toBeNull();
  });
});
