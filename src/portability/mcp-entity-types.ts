/**
 * How an MCP memory entity's free-text type maps onto the graph's entity types, and which
 * entities are services (their observations become memories of that service).
 */
import type { EntityType } from '../db/graph/graph.js';
import { validateService } from '../memory/index.js';

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
