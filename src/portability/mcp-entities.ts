/**
 * One entity of an MCP memory file: the graph entity it becomes (found or made), and each of
 * its observations as a memory through the memory service, imported once.
 */
import { isAppError } from '../errors.js';
import { technologyNamed } from '../graph/entities.js';
import { inferCategory, validateObservation } from '../memory/index.js';
import { graphType, serviceOf } from './mcp-entity-types.js';
import { type Entity, key } from './mcp-lines.js';
import type { McpAction, McpRun } from './mcp-report.js';

async function entityOf(run: McpRun, e: Entity): Promise<number | null> {
  const { deps, dryRun, report, emit } = run;
  const { graph, portability } = deps;
  const type = graphType(e.entityType);
  const name = type === 'technology' ? (technologyNamed(e.name) ?? e.name) : e.name;
  const existing = (await graph.entitiesNamed([name])).find((x) => x.type === type);
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
}

export async function importEntity(run: McpRun, e: Entity): Promise<void> {
  const { deps, dryRun, report, entities } = run;
  const { portability, memory } = deps;
  const entityId = await entityOf(run, e);
  entities.set(e.name, entityId);
  const service = serviceOf(e.name, e.entityType);
  for (const raw of e.observations) {
    const k = key('observation', e.name, raw);
    const observed = (action: McpAction, why: string, memoryId?: number) => {
      report.observations[action] += 1;
      run.emit({
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
}
