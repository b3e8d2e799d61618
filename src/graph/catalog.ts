/**
 * Technologies the built-in services catalog knows, by exact name or alias only (a word in prose
 * is not a container name, so none of the catalog's partial matching applies here).
 */
import { catalogKey, SERVICE_CATALOG } from '../knowledge/service-catalog.js';

const BY_KEY = new Map<string, string>();
for (const entry of SERVICE_CATALOG) {
  for (const spelling of [entry.name, ...entry.aliases])
    BY_KEY.set(catalogKey(spelling), entry.name);
}

/** The catalog's name for this spelling, or null. */
export function lookupCatalogName(spelling: string): string | null {
  return BY_KEY.get(catalogKey(spelling)) ?? null;
}
