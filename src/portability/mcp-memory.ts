/**
 * Import of the MCP reference memory server's knowledge graph (`memory.jsonl`, or the legacy
 * `memory.json` with the same lines). Entities become graph entities (their type mapped to the
 * graph's, `concept` when unknown; a known technology folded to its one name), each observation
 * a memory through the memory service (so one that says what a memory says reinforces it), and
 * relations become relations between the entities. A service, host or system's observations are
 * memories of that service; any other entity's are general memories that name the entity and
 * are linked to it. Each observation and relation is imported once, so importing the file again
 * after the server learned more brings only what is new. Malformed lines are counted and skipped.
 */
import { createHash } from 'node:crypto';

import type { EntityType, GraphStore } from '../db/graph.js';
import type { PortabilityStore } from '../db/index.js';
import { isAppError } from '../errors.js';
import { technologyNamed } from '../graph/entities.js';
import type { MemoryService } from '../knowledge/index.js';
import { inferCategory, validateObservation, validateService } from '../memory/index.js';
import { type NumberedLine, tooLongWhy } from './lines.js';

export type McpAction = 'created' | 'reinforced' | 'superseded' | 'skipped' | 'refused';

export interface McpItem {
  line: number;
  kind: 'entity' | 'observation' | 'relation' | 'line';
  action: McpAction;
  text: string;
  why: string;
  memoryId?: number;
}

export interface McpImportReport {
  dryRun: boolean;
  entities: { created: number; existing: number };
  observations: Record<Exclude<McpAction, 'superseded'> | 'superseded', number>;
  relations: { created: number; skipped: number; refused: number };
  /** Lines that are not an entity or a relation (counted and skipped, as the server does). */
  malformed: number;
  items: McpItem[];
}

export interface McpImportDeps {
  graph: GraphStore;
  portability: PortabilityStore;
  memory: MemoryService;
  now: () => number;
}

const MAX_ITEMS = 2000;

// Matched against each word of the entity's type ("Home Server" -> server).
const SERVICE_LIKE = new Set(
  'service services host hosts hostname server servers system systems machine vm container daemon database db device node cluster nas router'.split(
    ' ',
  ),
);
const TYPE_WORDS: [EntityType, Set<string>][] = [
  [
    'person',
    new Set(
      'person people user human individual contact developer engineer owner admin colleague friend family member customer'.split(
        ' ',
      ),
    ),
  ],
  [
    'project',
    new Set('project repo repository codebase product application app initiative'.split(' ')),
  ],
  [
    'file',
    new Set('file document doc path config configuration script directory folder'.split(' ')),
  ],
  [
    'technology',
    new Set(
      'technology tech tool software library framework language platform infrastructure api package os protocol'.split(
        ' ',
      ),
    ),
  ],
];

function words(entityType: string): string[] {
  return entityType
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The graph's type for an MCP entity type: by its words, `concept` when none fits. */
export function graphType(entityType: string): EntityType {
  const w = words(entityType);
  if (w.some((x) => SERVICE_LIKE.has(x))) return 'technology';
  for (const [type, set] of TYPE_WORDS) if (w.some((x) => set.has(x))) return type;
  return 'concept';
}

/** The service an entity's observations belong to, when the entity is a service, host or system. */
export function serviceOf(name: string, entityType: string): string | null {
  if (!words(entityType).some((x) => SERVICE_LIKE.has(x))) return null;
  try {
    return validateService(name.trim().toLowerCase().replace(/\s+/g, '-'));
  } catch {
    return null;
  }
}

function key(...parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

interface Entity {
  n: number;
  name: string;
  entityType: string;
  observations: string[];
}

interface Relation {
  n: number;
  from: string;
  to: string;
  relationType: string;
}

function asEntity(n: number, v: Record<string, unknown>): Entity | string {
  if (typeof v.name !== 'string' || v.name.trim() === '') return 'name: a text is required';
  if (typeof v.entityType !== 'string') return 'entityType: a text is required';
  if (!Array.isArray(v.observations) || v.observations.some((o) => typeof o !== 'string'))
    return 'observations: a list of texts is required';
  return {
    n,
    name: v.name.trim(),
    entityType: v.entityType,
    observations: v.observations as string[],
  };
}

function asRelation(n: number, v: Record<string, unknown>): Relation | string {
  for (const f of ['from', 'to', 'relationType'] as const) {
    const x = v[f];
    if (typeof x !== 'string' || x.trim() === '') return `${f}: a text is required`;
    if (f === 'relationType' && x.length > 200) return `${f}: over 200 characters`;
  }
  return {
    n,
    from: (v.from as string).trim(),
    to: (v.to as string).trim(),
    relationType: (v.relationType as string).trim(),
  };
}

export async function importMcpMemory(
  deps: McpImportDeps,
  lines: AsyncIterable<NumberedLine>,
  opts: { dryRun?: boolean; onItem?: (item: McpItem) => void } = {},
): Promise<McpImportReport> {
  const dryRun = opts.dryRun ?? false;
  const { graph, portability, memory } = deps;
  const report: McpImportReport = {
    dryRun,
    entities: { created: 0, existing: 0 },
    observations: { created: 0, reinforced: 0, superseded: 0, skipped: 0, refused: 0 },
    relations: { created: 0, skipped: 0, refused: 0 },
    malformed: 0,
    items: [],
  };
  const emit = (item: McpItem) => {
    if (report.items.length < MAX_ITEMS) report.items.push(item);
    opts.onItem?.(item);
  };
  // The MCP name of each entity of the file -> the graph entity it became (null in a dry run
  // when it does not exist yet).
  const entities = new Map<string, number | null>();
  const relations: Relation[] = [];

  const entityOf = (e: Entity): number | null => {
    const type = graphType(e.entityType);
    const name = type === 'technology' ? (technologyNamed(e.name) ?? e.name) : e.name;
    const existing = graph.entitiesNamed(name).find((x) => x.type === type);
    if (existing) {
      report.entities.existing += 1;
      if (!dryRun) graph.entityId(name, type, e.name);
      return existing.id;
    }
    report.entities.created += 1;
    emit({
      line: e.n,
      kind: 'entity',
      action: 'created',
      text: e.name,
      why: `a ${type}${name === e.name ? '' : ` named ${name}`} (MCP type "${e.entityType}")`,
    });
    if (dryRun) return null;
    const id = graph.entityId(name, type, e.name);
    portability.recordImport('mcp-memory', key('entity', e.name), 'entity', id, deps.now());
    return id;
  };

  const importEntity = async (e: Entity) => {
    const entityId = entityOf(e);
    entities.set(e.name, entityId);
    const service = serviceOf(e.name, e.entityType);
    for (const raw of e.observations) {
      const k = key('observation', e.name, raw);
      const observed = (action: McpAction, why: string, memoryId?: number) => {
        report.observations[action] += 1;
        emit({
          line: e.n,
          kind: 'observation',
          action,
          text: `${e.name}: ${raw}`,
          why,
          ...(memoryId === undefined ? {} : { memoryId }),
        });
      };
      const before = portability.importedAs('mcp-memory', k);
      if (before !== undefined) {
        observed('skipped', `imported before${before === null ? '' : ` (memory #${before})`}`);
        continue;
      }
      let text: string;
      try {
        const plain = validateObservation(raw);
        // A general memory names its entity, so that it means something in a session's block.
        text =
          service === null && !plain.toLowerCase().includes(e.name.toLowerCase())
            ? validateObservation(`${e.name}: ${plain}`)
            : plain;
      } catch (err) {
        if (!isAppError(err)) throw err;
        observed('refused', err.message);
        continue;
      }
      const category = inferCategory(text);
      const where = service === null ? 'general' : service;
      if (dryRun) {
        const judged = await memory.judge({ service, observation: text });
        if (judged.kind === 'duplicate')
          observed('reinforced', `says what memory #${judged.memory.id} says`, judged.memory.id);
        else if (judged.kind === 'contradicts')
          observed(
            'superseded',
            `says otherwise than memory #${judged.memory.id}, which it would replace`,
          );
        else observed('created', `a ${category} memory of ${where}`);
        continue;
      }
      const outcome = await memory.observe({
        service,
        category,
        observation: text,
        sessionId: null,
        tier: 0,
        source: 'import',
        sourceRef: `mcp-memory ${e.name}`.slice(0, 500),
      });
      if (entityId !== null) portability.linkEntity(outcome.memory.id, entityId);
      portability.recordImport('mcp-memory', k, 'observation', outcome.memory.id, deps.now());
      observed(
        outcome.action,
        outcome.action === 'created'
          ? `memory #${outcome.memory.id}, ${category}, of ${where}`
          : outcome.action === 'reinforced'
            ? `memory #${outcome.memory.id} said the same`
            : `memory #${outcome.memory.id} replaces #${outcome.replaced?.id}, which said otherwise`,
        outcome.memory.id,
      );
    }
  };

  const resolve = (name: string): number | null | undefined => {
    if (entities.has(name)) return entities.get(name);
    const found =
      graph.entitiesNamed(technologyNamed(name) ?? name)[0] ?? graph.entitiesNamed(name)[0];
    return found?.id;
  };

  const importRelation = (r: Relation) => {
    const text = `${r.from} -${r.relationType}-> ${r.to}`;
    const related = (action: 'created' | 'skipped' | 'refused', why: string) => {
      report.relations[action] += 1;
      emit({ line: r.n, kind: 'relation', action, text, why });
    };
    const k = key('relation', r.from, r.to, r.relationType);
    if (portability.importedAs('mcp-memory', k) !== undefined)
      return related('skipped', 'imported before');
    const from = resolve(r.from);
    const to = resolve(r.to);
    const missing = from === undefined ? r.from : to === undefined ? r.to : null;
    if (missing !== null) return related('refused', `no entity named "${missing}"`);
    if (from !== null && to !== null && portability.hasEntityRelation(from!, to!, r.relationType))
      return related('skipped', 'the graph already has it');
    if (dryRun) return related('created', 'a relation between entities');
    portability.addEntityRelation(from!, to!, r.relationType, deps.now());
    portability.recordImport('mcp-memory', k, 'relation', null, deps.now());
    related('created', 'a relation between entities');
  };

  for await (const line of lines) {
    const { n, text } = line;
    if (line.tooLong !== undefined) {
      report.malformed += 1;
      emit({ line: n, kind: 'line', action: 'refused', text: '', why: tooLongWhy(line) });
      continue;
    }
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      report.malformed += 1;
      emit({
        line: n,
        kind: 'line',
        action: 'refused',
        text: text.slice(0, 80),
        why: `not JSON (${(err as Error).message})`,
      });
      continue;
    }
    const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
    const parsed =
      v.type === 'entity'
        ? asEntity(n, v)
        : v.type === 'relation'
          ? asRelation(n, v)
          : `type: ${JSON.stringify(v.type ?? null)} is neither "entity" nor "relation"`;
    if (typeof parsed === 'string') {
      report.malformed += 1;
      emit({ line: n, kind: 'line', action: 'refused', text: text.slice(0, 80), why: parsed });
      continue;
    }
    if ('entityType' in parsed) await importEntity(parsed);
    else relations.push(parsed);
  }
  // After every entity of the file, whatever the order of its lines.
  for (const r of relations) importRelation(r);
  return report;
}
