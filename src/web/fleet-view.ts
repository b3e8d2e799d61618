/**
 * Whether pages name instances: a lone SQLite sidecar is the instance `local`, and a badge,
 * column or filter saying so on every row is noise. A fleet (a shared database, a named
 * instance, or a store other instances wrote to) shows them. Asked on every request, so it asks
 * the store only for a SQLite file (a local read).
 */
import type { WebDeps } from './deps.js';

export const LONE = 'local';

export function showsInstances(deps: Pick<WebDeps, 'config' | 'stores'>): boolean {
  // A shared database is the store's engine, whatever the configuration says of it.
  if (deps.config.fleet.instance !== LONE || deps.stores.db.engine === 'postgres') return true;
  // Two names at most: enough to know whether any is not `local`.
  const names = [...deps.stores.sessions.instances(2), ...deps.stores.events.instances(2)];
  return names.some((n) => n !== LONE);
}

/**
 * The same rule for the Memories page, which also knows the instances its memories belong to:
 * a memory another instance wrote, or one shared with the fleet, is worth naming on every row.
 */
export function memoriesShowInstances(
  deps: Pick<WebDeps, 'config' | 'stores'>,
  memoryInstances: readonly string[],
): boolean {
  return memoryInstances.some((n) => n !== LONE) || showsInstances(deps);
}
