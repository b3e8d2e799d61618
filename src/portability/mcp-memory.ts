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
import { technologyNamed } from '../graph/entities.js';
import { importEntity } from './mcp-entities.js';
import { asEntity, asRelation, key, type Relation } from './mcp-lines.js';
import type { McpImportDeps, McpImportReport, McpItem, McpRun } from './mcp-report.js';
import { type NumberedLine, tooLongWhy } from './lines.js';

export { graphType, serviceOf } from './mcp-entity-types.js';
export type { McpAction, McpImportDeps, McpImportReport, McpItem } from './mcp-report.js';

const MAX_ITEMS = 2000;

export async function importMcpMemory(
  deps: McpImportDeps,
  lines: AsyncIterable<NumberedLine>,
  opts: { dryRun?: boolean; onItem?: (item: McpItem) => void } = {},
): Promise<McpImportReport> {
  const dryRun = opts.dryRun ?? false;
  const { graph, portability } = deps;
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
  const run: McpRun = { deps, dryRun, report, emit, entities: new Map() };
  const { entities } = run;
  const relations: Relation[] = [];

  const resolve = async (name: string): Promise<number | null | undefined> => {
    if (entities.has(name)) return entities.get(name);
    const found =
      (await graph.entitiesNamed([technologyNamed(name) ?? name]))[0] ??
      (await graph.entitiesNamed([name]))[0];
    return found?.id;
  };

  const importRelation = async (r: Relation) => {
    const text = `${r.from} -${r.relationType}-> ${r.to}`;
    const related = (action: 'created' | 'skipped' | 'refused', why: string) => {
      report.relations[action] += 1;
      emit({ line: r.n, kind: 'relation', action, text, why });
    };
    const k = key('relation', r.from, r.to, r.relationType);
    if (portability.importedAs('mcp-memory', k) !== undefined)
      return related('skipped', 'imported before');
    const from = await resolve(r.from);
    const to = await resolve(r.to);
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
    if ('entityType' in parsed) await importEntity(run, parsed);
    else relations.push(parsed);
  }
  // After every entity of the file, whatever the order of its lines.
  for (const r of relations) await importRelation(r);
  return report;
}
