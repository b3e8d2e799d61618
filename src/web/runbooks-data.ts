/**
 * What the Runbooks page shows: each repository with its manifest, its documents, its MCP
 * servers (names and transports only: a definition often holds credentials) and the warnings
 * found in its files; then the built-in library. Each check has the last outcome a session
 * reported for it: the agent reports a check with `[HEALTH:state:name]` or `[EVENT:level:name]`
 * (see the runbooks section of the prompt), so the check's name is matched against the stored
 * health and events, the newer of the two winning.
 */
import {
  BUILT_IN,
  discoverRunbooks,
  formatIssue,
  type RunbookDoc,
  type Runbooks,
} from '../runbooks/index.js';
import type { WebDeps } from './deps.js';

/** What the page reads: the repos folder from the configuration, the outcomes from the store. */
type RunbooksDeps = Pick<WebDeps, 'config' | 'stores'>;

export interface CheckOutcome {
  /** A health state (healthy, degraded, down, unreachable) or an event level. */
  status: string;
  detail: string | null;
  at: number;
  sessionId: number | null;
}

/** The names a session may report a check under: `http-caddy` as itself, or as `caddy`. */
function reportedAs(doc: RunbookDoc): string[] {
  const name = doc.name.toLowerCase();
  const bare = name.replace(/^check[-_]|[-_]check$/, '');
  return [...new Set([name, bare])];
}

/** What sessions last reported under each name: health and events, read side by side. */
async function reported(deps: RunbooksDeps, docs: readonly RunbookDoc[]) {
  const names = [...new Set(docs.flatMap(reportedAs))];
  const [health, events] = await Promise.all([
    deps.stores.sessionRecords.latestHealthOf(names),
    deps.stores.events.latestOf(names),
  ]);
  return {
    health: new Map(health.map((h) => [h.service, h])),
    events: new Map(events.map((e) => [e.service!, e])),
  };
}

type Reported = Awaited<ReturnType<typeof reported>>;

function lastOutcome(seen: Reported, doc: RunbookDoc): CheckOutcome | null {
  let best: CheckOutcome | null = null;
  for (const service of reportedAs(doc)) {
    const health = seen.health.get(service);
    if (health && (!best || health.createdAt > best.at)) {
      best = {
        status: health.health,
        detail: health.detail,
        at: health.createdAt,
        sessionId: health.sessionId,
      };
    }
    const event = seen.events.get(service);
    if (event && (!best || event.createdAt > best.at)) {
      best = {
        status: event.level,
        detail: event.message,
        at: event.createdAt,
        sessionId: event.sessionId,
      };
    }
  }
  return best;
}

function docsOf(r: Runbooks, source: string, seen: Reported) {
  const pick = (docs: RunbookDoc[]) => docs.filter((d) => d.source === source);
  return {
    checks: pick(r.checks).map((d) => ({ ...d, outcome: lastOutcome(seen, d) })),
    playbooks: pick(r.playbooks),
    skills: pick(r.skills),
  };
}

const transport = (config: Record<string, unknown>) =>
  typeof config.url === 'string' ? String(config.type ?? 'http') : 'stdio';

export async function runbooksPage(deps: RunbooksDeps) {
  const r = await discoverRunbooks({ reposDir: deps.config.runbooks.reposDir });
  const inside = (path: string, file: string) => file === path || file.startsWith(`${path}/`);
  const seen = await reported(deps, r.checks);
  const repositories = r.repositories.map((repo) => ({
    ...repo,
    ...docsOf(r, repo.path, seen),
    servers: r.mcpServers
      .filter((s) => s.source === repo.path)
      .map((s) => ({ name: s.name, transport: transport(s.config), path: s.path })),
    warnings: r.warnings.filter((w) => inside(repo.path, w.file)).map(formatIssue),
  }));
  const elsewhere = r.warnings.filter((w) => !r.repositories.some((x) => inside(x.path, w.file)));
  return {
    reposDir: r.reposDir,
    repositories,
    library: docsOf(r, BUILT_IN, seen),
    warnings: elsewhere.map(formatIssue),
  };
}
