/**
 * The services a session checked and the health it found. The rule, documented in README.md:
 *
 * 1. `[HEALTH:status:service] detail` markers in the model's own text (read like every marker);
 * 2. else, in the final response, outside code and quotes:
 *    - a label and a list: `Healthy: caddy, pihole. Degraded: jellyfin (slow). Down: nas.`
 *      (the label starts a line or a sentence; a list item is a service name, optionally with a
 *      detail in parentheses or after " - ");
 *    - or one service per line: `- jellyfin: degraded (2.9 s)`, `jellyfin - down`.
 * The labels are the four states (healthy, degraded, down, unreachable). Per service the last
 * mention wins; a marker wins over the final response. The parsing is pure; `recordHealth`
 * stores the result.
 */
import type { ServiceCheck, Stores } from '../db/index.js';
import type { Knowledge } from '../knowledge/index.js';
import { type HealthState, markdownLines, normaliseHealth, quotedLines } from '../stream/index.js';
import { checkServiceName, printable } from '../text-rules.js';

const STATES = 'healthy|degraded|down|unreachable';
// A label at the start of a line or sentence: `Healthy:`, `**Down**:`, `- Degraded:`.
const LABEL = new RegExp(
  `(?:^|[.;|]\\s+)(?:[-*+]\\s+)?[*_]{0,2}(${STATES})[*_]{0,2}\\s*:[*_]{0,2}\\s*`,
  'gi',
);
// `- jellyfin: degraded (detail)`, `**caddy** - healthy`.
const SERVICE_LINE = new RegExp(
  `^\\s{0,3}(?:[-*+]\\s+|\\d{1,3}[.)]\\s+)?[*_\`]{0,2}([A-Za-z0-9][A-Za-z0-9_.-]{0,99})[*_\`]{0,2}\\s*(?::|\\s[-\u2013\u2014]\\s)\\s*[*_]{0,2}(${STATES})\\b[*_]{0,2}[\\s:,.-]*(.*)$`,
  'i',
);
const MAX_DETAIL = 300;
const NONE = /^(?:none|nothing|n\/a|-)$/i;
// Words that head a "word: healthy" line without naming a service.
const NOT_SERVICES = new Set([
  'status',
  'overall',
  'result',
  'summary',
  'health',
  'everything',
  'all',
]);

function detailOf(text: string): string | null {
  const d = printable(text.replace(/^[\s(:,-]+|[\s).]+$/g, ''), MAX_DETAIL).trim();
  return d === '' ? null : d;
}

/** Splits on commas and " and " outside parentheses. */
function listItems(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '(') depth += 1;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (ch === ',' || text.startsWith(' and ', i))) {
      out.push(text.slice(start, i));
      start = ch === ',' ? i + 1 : i + 5;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

function listItem(item: string, health: HealthState): ServiceCheck | null {
  if (NONE.test(item)) return null;
  const m = /^[*_`]{0,2}([A-Za-z0-9][A-Za-z0-9_.-]*?)[*_`]{0,2}(?=$|[\s(:])(.*)$/.exec(item);
  if (!m) return null;
  const name = checkServiceName(m[1]!.replace(/\.$/, ''));
  if (!name.ok || NOT_SERVICES.has(name.name)) return null;
  const rest = m[2]!.trim();
  // "caddy is fine" is prose, not a list item.
  if (rest !== '' && !/^[(:\-\u2013\u2014]/.test(rest)) return null;
  return { service: name.name, health, detail: detailOf(rest), source: 'response' };
}

/** The lines of `text` that are prose: not quoted, not code (as the dashboard renders them). */
function proseLines(text: string): string[] {
  const lines = markdownLines(text);
  const quoted = quotedLines(lines);
  return lines.filter((_, i) => !quoted[i]);
}

/** The checks a final response states (rule 2 above), in order of mention. */
export function healthFromResponse(text: string | null): ServiceCheck[] {
  if (!text) return [];
  const out: ServiceCheck[] = [];
  for (const line of proseLines(text)) {
    const single = SERVICE_LINE.exec(line);
    if (single) {
      const name = checkServiceName(single[1]!);
      if (name.ok && !NOT_SERVICES.has(name.name)) {
        out.push({
          service: name.name,
          health: single[2]!.toLowerCase() as HealthState,
          detail: detailOf(single[3]!),
          source: 'response',
        });
      }
      continue;
    }
    const labels = [...line.matchAll(LABEL)];
    labels.forEach((m, i) => {
      const from = m.index + m[0].length;
      const to = i + 1 < labels.length ? labels[i + 1]!.index : line.length;
      // The list ends at its sentence's end: a full stop followed by a space or the line's end.
      const segment = line.slice(from, to).replace(/\.(?:\s.*)?$/, '');
      const health = normaliseHealth(m[1]!)!;
      for (const item of listItems(segment)) {
        const check = listItem(item, health);
        if (check) out.push(check);
      }
    });
  }
  return out;
}

/**
 * Stores the services a session checked (its markers, then its final response) and makes each
 * a known service, so that one only a health check named is on the Services page.
 */
export async function recordHealth(
  deps: { stores: Pick<Stores, 'sessionRecords'>; knowledge: Pick<Knowledge, 'services'> },
  sessionId: number,
  markers: readonly ServiceCheck[],
  finalText: string | null,
  at: number,
): Promise<void> {
  const checks = mergeChecks(markers, healthFromResponse(finalText));
  if (checks.length === 0) return;
  await deps.stores.sessionRecords.recordChecks(sessionId, checks, at);
  for (const c of checks) await deps.knowledge.services.seenAwaited(c.service, at);
}

/** One check per service: markers win over the final response; the last mention wins. */
export function mergeChecks(
  markers: readonly ServiceCheck[],
  response: readonly ServiceCheck[],
): ServiceCheck[] {
  const byService = new Map<string, ServiceCheck>();
  for (const c of response) byService.set(c.service, c);
  const fromMarkers = new Map<string, ServiceCheck>();
  for (const c of markers) fromMarkers.set(c.service, c);
  for (const [service, c] of fromMarkers) byService.set(service, c);
  return [...byService.values()];
}
