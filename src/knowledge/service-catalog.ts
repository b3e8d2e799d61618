/**
 * What the built-in catalog knows about a service, looked up by whatever the agent or the operator
 * called it: the catalog name, an alias, a container image (`lscr.io/linuxserver/jellyfin:10.9`) or
 * a container name (`media-jellyfin-1`, `jellyfin-7d9f8b6c5-x2x7z`).
 *
 * Pure: the indexes are built once from the data module.
 */
import { type CatalogEntry, SERVICE_CATALOG } from './service-catalog-data.js';

export { type CatalogEntry, CATALOG_KINDS, SERVICE_CATALOG } from './service-catalog-data.js';

/** `node_exporter`, `node.exporter` and `node-exporter` are one spelling. */
export function catalogKey(name: string): string {
  return name.trim().toLowerCase().replace(/[_.]+/g, '-');
}

/**
 * An image reference without digest, tag and registry host: `ghcr.io/hotio/sonarr:release` is
 * `hotio/sonarr`, `docker.io/library/postgres:16` is `postgres`. Null when it is not an image.
 */
export function imageKey(ref: string): string | null {
  let s = ref.trim().toLowerCase();
  const at = s.indexOf('@');
  if (at >= 0) s = s.slice(0, at);
  const lastSlash = s.lastIndexOf('/');
  const colon = s.lastIndexOf(':');
  // A colon before the last slash is a registry port, not a tag.
  if (colon > lastSlash) s = s.slice(0, colon);
  const parts = s.split('/').filter((p) => p.length > 0);
  const first = parts[0];
  if (first !== undefined && parts.length > 1 && (/[.:]/.test(first) || first === 'localhost')) {
    parts.shift();
  }
  if (parts[0] === 'library' && parts.length > 1) parts.shift();
  return parts.length > 0 ? parts.join('/') : null;
}

const byKey = new Map<string, CatalogEntry>();
const byImage = new Map<string, CatalogEntry>();
for (const entry of SERVICE_CATALOG) {
  for (const spelling of [entry.name, ...entry.aliases]) byKey.set(catalogKey(spelling), entry);
  for (const image of entry.images) {
    const key = imageKey(image);
    if (key !== null) byImage.set(key, entry);
  }
}

// How many delimited parts the longest name has. Longer runs are tried first, so that
// `ingress-nginx-controller-7d9f8-x2x7z` is ingress-nginx, not nginx.
const MAX_RUN = Math.max(...[...byKey.keys()].map((k) => k.split('-').length));
// Two-letter aliases (`ha`, `pg`, `es`) are taken as a whole name only: inside a longer name
// (`ha-cluster`) they name something else too often.
const MIN_PART_KEY = 3;

function fromParts(text: string): CatalogEntry | null {
  const parts = catalogKey(text)
    .split(/[^a-z0-9]+/)
    .filter((p) => p.length > 0);
  for (let len = Math.min(MAX_RUN, parts.length); len >= 1; len--) {
    // Rightmost first: compose names are `project-service-N`, so `immich_postgres` is postgres.
    for (let start = parts.length - len; start >= 0; start--) {
      const key = parts.slice(start, start + len).join('-');
      if (key.length < MIN_PART_KEY) continue;
      const entry = byKey.get(key);
      if (entry) return entry;
    }
  }
  return null;
}

/**
 * The catalog entry for a service name, alias, container image (with or without tag, digest or
 * registry) or container name whose delimited part is a known name; null when nothing matches.
 */
export function lookupCatalog(nameOrImage: string): CatalogEntry | null {
  const text = nameOrImage.trim().toLowerCase().replace(/^\/+/, '');
  if (text.length === 0) return null;
  const exact = byKey.get(catalogKey(text));
  if (exact) return exact;
  if (/[/:@]/.test(text)) {
    const key = imageKey(text);
    if (key === null) return null;
    const image = byImage.get(key);
    if (image) return image;
    // An image nobody listed (`someone/jellyfin-custom`) is named by its last path part.
    return fromParts(key.slice(key.lastIndexOf('/') + 1));
  }
  return fromParts(text);
}
