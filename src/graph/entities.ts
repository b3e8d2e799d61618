/**
 * Entities named in a sentence, offline (the model port may name them instead): files by their
 * path, technologies from the built-in services catalog and a list of languages and tools,
 * hardware part numbers, projects, people and concepts. Spellings are folded to one name per
 * entity ("Postgres", "postgresql" and "PG" are PostgreSQL) so that ideas link across sessions.
 */
import type { EntityType } from '../db/graph/graph.js';
import { lookupCatalogName } from './catalog.js';
import { mayNameEntity } from './not-entities.js';

export interface EntityMention {
  name: string;
  type: EntityType;
  /** The spelling as written. */
  alias: string;
}

/** Languages, tools and platforms the services catalog does not list, with their spellings. */
const TECHNOLOGIES: Record<string, string[]> = {
  TypeScript: ['typescript', 'ts'],
  JavaScript: ['javascript', 'js'],
  'Node.js': ['node', 'nodejs', 'node.js'],
  Python: ['python', 'python3'],
  Rust: ['rust'],
  Go: ['golang'],
  Java: ['java'],
  Kotlin: ['kotlin'],
  Ruby: ['ruby'],
  Bash: ['bash', 'shell script'],
  React: ['react', 'reactjs'],
  Vue: ['vue', 'vuejs'],
  Svelte: ['svelte'],
  Hono: ['hono'],
  htmx: ['htmx'],
  Vitest: ['vitest'],
  Jest: ['jest'],
  ESLint: ['eslint'],
  Prettier: ['prettier'],
  npm: ['npm'],
  pnpm: ['pnpm'],
  Yarn: ['yarn'],
  Vite: ['vite'],
  Webpack: ['webpack'],
  Git: ['git'],
  GitHub: ['github'],
  Kubernetes: ['kubernetes', 'k8s', 'kubectl'],
  Helm: ['helm'],
  Terraform: ['terraform'],
  Ansible: ['ansible'],
  systemd: ['systemd', 'systemctl'],
  Linux: ['linux'],
  Ubuntu: ['ubuntu'],
  Debian: ['debian'],
  AWS: ['aws'],
  S3: ['s3'],
  GCP: ['gcp'],
  Azure: ['azure'],
  'sqlite-vec': ['sqlite-vec'],
  FTS5: ['fts5'],
  BM25: ['bm25'],
  OpenAI: ['openai'],
  Anthropic: ['anthropic'],
  Claude: ['claude', 'claude code'],
  'Claude CLI': ['claude cli'],
  LoRa: ['lora'],
  Arduino: ['arduino'],
  'Raspberry Pi': ['raspberry pi', 'raspi'],
  GraphQL: ['graphql'],
  gRPC: ['grpc'],
  WebSocket: ['websocket', 'websockets'],
  OAuth: ['oauth', 'oauth2'],
  JWT: ['jwt'],
  TLS: ['tls', 'ssl'],
  JSON: ['json', 'jsonl', 'ndjson'],
  YAML: ['yaml'],
  SQL: ['sql'],
  Zod: ['zod'],
  Playwright: ['playwright'],
  Chromium: ['chromium'],
  'better-sqlite3': ['better-sqlite3'],
};

/** How the catalog's lower-case names are written (the rest keep the catalog's spelling). */
const DISPLAY: Record<string, string> = {
  postgresql: 'PostgreSQL',
  sqlite: 'SQLite',
  mysql: 'MySQL',
  mariadb: 'MariaDB',
  mongodb: 'MongoDB',
  redis: 'Redis',
  docker: 'Docker',
  nginx: 'nginx',
  elasticsearch: 'Elasticsearch',
  grafana: 'Grafana',
  prometheus: 'Prometheus',
  jellyfin: 'Jellyfin',
  caddy: 'Caddy',
  traefik: 'Traefik',
  wireguard: 'WireGuard',
  kafka: 'Kafka',
  rabbitmq: 'RabbitMQ',
  restic: 'restic',
};

const BY_SPELLING = new Map<string, string>();
for (const [name, spellings] of Object.entries(TECHNOLOGIES)) {
  BY_SPELLING.set(name.toLowerCase(), name);
  for (const s of spellings) BY_SPELLING.set(s, name);
}
const MULTIWORD = [...BY_SPELLING.keys()].filter((k) => k.includes(' '));

/** Catalog names that are everyday words: taken only when written capitalised mid-sentence. */
const EVERYDAY = new Set(
  (
    'abs actual alloy argo artemis bind bao carbon celery chroma concourse cups dex distribution ' +
    'dragonfly drone element envoy flame flannel flux garage gatekeeper ghost glance glances ' +
    'harbor homepage homer hydra kong matrix mayan named nebula nexus nut outline pulsar radius ' +
    'recursor registry reloader rook sab semaphore sentry swag synapse tempo temporal ' +
    'transmission turn unbound vault vector wings zed memos planka firefly factorio minecraft ' +
    'valheim garage charon scrutiny actual lighty umami glance apache ocis'
  ).split(' '),
);

const FILE =
  /(?:^|[\s(`'"])((?:~|\.{1,2})?(?:\/?[\w@.-]+\/)*[\w@-][\w@.-]*\.(?:tsx?|m?js|cjs|json|jsonl|ndjson|md|py|rs|go|java|rb|sh|ya?ml|toml|sql|html|css|eta|conf|ini|env|txt|log|lock|c|h|cpp|xml|csv))(?=$|[\s)`'",:;!?]|\.(?:\s|$))/g;
const FILE_NAMES = /\b(Dockerfile|Makefile|docker-compose\.ya?ml|compose\.ya?ml|README)\b/g;
const WORD = /[A-Za-z][A-Za-z0-9.+#_-]*[A-Za-z0-9+#]|[A-Za-z]/g;
const PART_NUMBER = /^[A-Z]{2,}[0-9]+[A-Z0-9]*$|^[A-Z][0-9]{2,}[A-Z0-9]*$/;
const ACRONYM = /^[A-Z]{3,6}s?$/;
const PROJECT = /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*[-_]v?\d+(?:[.-]\d+)*$/;
const BACKTICK = /`([^`\n]{2,60})`/g;

/** The entity a spelling names, when it is a known technology (catalog or list). */
export function technologyNamed(spelling: string): string | null {
  const key = spelling.toLowerCase();
  const listed = BY_SPELLING.get(key);
  if (listed) return listed;
  if (key.length < 3 || !/^[a-z0-9][a-z0-9.+_-]*$/.test(key)) return null;
  const name = lookupCatalogName(key);
  return name === null ? null : (DISPLAY[name] ?? name);
}

/** Entities named in a sentence; `project` is the session's project, named when it appears. */
export function entitiesIn(
  text: string,
  hints: { project?: string | null; service?: string | null } = {},
): EntityMention[] {
  const out = new Map<string, EntityMention>();
  const add = (name: string, type: EntityType, alias: string) => {
    if (!mayNameEntity(name, type)) return;
    const key = `${type}:${name.toLowerCase()}`;
    if (!out.has(key)) out.set(key, { name, type, alias });
  };
  const taken = new Set<string>();

  for (const m of text.matchAll(FILE)) {
    const path = m[1]!.replace(/^\.\//, '');
    if (/^\d/.test(path) || /^v?\d+(\.\d+)+$/.test(path)) continue;
    add(path, 'file', m[1]!);
    for (const part of path.split(/[/.]/)) taken.add(part.toLowerCase());
  }
  for (const m of text.matchAll(FILE_NAMES)) add(m[1]!, 'file', m[1]!);

  const lower = text.toLowerCase();
  for (const phrase of MULTIWORD) {
    if (new RegExp(`\\b${phrase.replace(/[.]/g, '\\.')}\\b`).test(lower)) {
      add(BY_SPELLING.get(phrase)!, 'technology', phrase);
      for (const w of phrase.split(' ')) taken.add(w);
    }
  }

  if (hints.service) {
    const tech = technologyNamed(hints.service);
    add(tech ?? hints.service, 'technology', hints.service);
  }
  if (hints.project && lower.includes(hints.project.toLowerCase())) {
    add(hints.project, 'project', hints.project);
    taken.add(hints.project.toLowerCase());
  }

  for (const m of text.matchAll(BACKTICK)) {
    const term = m[1]!.trim();
    if (taken.has(term.toLowerCase()) || technologyNamed(term)) continue;
    if (/\s/.test(term) && term.split(/\s+/).length > 4) continue;
    add(term, 'concept', term);
    taken.add(term.toLowerCase());
  }

  let sentenceStart = true;
  for (const m of text.matchAll(WORD)) {
    const word = m[0]!;
    const at = m.index!;
    const before = text.slice(Math.max(0, at - 2), at);
    const initial = sentenceStart || /[.!?:]\s*$/.test(before) || at === 0;
    sentenceStart = false;
    const key = word.toLowerCase().replace(/[.]+$/, '');
    if (taken.has(key)) continue;
    const tech = technologyNamed(key);
    if (tech && (!EVERYDAY.has(key) || (/^[A-Z]/.test(word) && !initial))) {
      // Two-letter spellings ("ts", "js", "pg") count only as written in capitals.
      if (key.length > 2 || word === word.toUpperCase()) add(tech, 'technology', word);
      continue;
    }
    if (PART_NUMBER.test(word)) {
      add(word, 'technology', word);
      continue;
    }
    if (PROJECT.test(word)) {
      add(word, 'project', word);
      continue;
    }
    if (ACRONYM.test(word) && mayNameEntity(word, 'concept')) {
      add(word.replace(/s$/, ''), 'concept', word);
      continue;
    }
    if (/^[A-Z][a-z]{2,}$/.test(word) && !initial) {
      add(word, 'person', word);
    }
  }
  return [...out.values()];
}
