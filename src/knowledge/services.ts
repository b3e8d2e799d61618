/**
 * Services and what they are. The description comes, in order of precedence, from the operator
 * (`services describe`, the Services page), the agent (a `[SERVICE:name] what it is` marker) or
 * the built-in catalog of well-known software; it is indexed with each memory of the service so
 * that "media server" finds jellyfin's memories.
 */
import type { Clock } from '../clock.js';
import type { DescriptionSource, ServiceRow, ServiceStore } from '../db/index.js';
import { AppError } from '../errors.js';
import { validateDescription, validateService } from '../memory/index.js';
import { lookupCatalog } from './service-catalog.js';

export { MAX_DESCRIPTION_LENGTH } from '../memory/index.js';

export interface ServiceDetail extends ServiceRow {
  /** What the catalog says, when it knows the service (shown beside an operator's text). */
  catalog: { name: string; description: string } | null;
}

export function createServices(deps: { store: ServiceStore; clock: Clock }) {
  const { store, clock } = deps;
  // Names already ensured by this process: a marker stream repeats them, the row exists.
  const ensured = new Set<string>();

  /**
   * A description's row values: validated; an empty text from the operator clears theirs, and
   * the catalog's description comes back.
   */
  const describeArgs = (
    rawName: string,
    text: string,
    source: Exclude<DescriptionSource, 'catalog'>,
  ): [string, string | null, DescriptionSource, number, boolean] => {
    const name = validateService(rawName);
    if (name === null) {
      throw new AppError('invalid_input', 'service: a service name is required', {
        data: { field: 'service' },
      });
    }
    const description = validateDescription(text, source === 'operator');
    if (description === '') {
      return [name, lookupCatalog(name)?.description ?? null, 'catalog', clock.now(), true];
    }
    return [name, description, source, clock.now(), false];
  };

  const detail = (row: ServiceRow): ServiceDetail => {
    const entry = lookupCatalog(row.name);
    return {
      ...row,
      catalog: entry ? { name: entry.name, description: entry.description } : null,
    };
  };

  return {
    /** A first sighting: the row exists afterwards, described by the catalog when it can. */
    seen(name: string, at = clock.now()): void {
      if (ensured.has(name)) return;
      store.ensure(name, lookupCatalog(name)?.description ?? null, at);
      if (ensured.size < 10_000) ensured.add(name);
    },

    /** The same, awaited (observing: on PostgreSQL the event loop goes on meanwhile). */
    async seenAwaited(name: string, at = clock.now()): Promise<void> {
      if (ensured.has(name)) return;
      await store.ensureAwaited(name, lookupCatalog(name)?.description ?? null, at);
      if (ensured.size < 10_000) ensured.add(name);
    },

    /** Sets what a service is. An agent's text never overwrites the operator's. */
    describe(rawName: string, text: string, source: Exclude<DescriptionSource, 'catalog'>) {
      return store.describe(...describeArgs(rawName, text, source));
    },

    /** The same, awaited (the dashboard, the API, a live session's [SERVICE] marker). */
    describeAwaited(
      rawName: string,
      text: string,
      source: Exclude<DescriptionSource, 'catalog'>,
    ): Promise<boolean> {
      return store.describeAwaited(...describeArgs(rawName, text, source));
    },

    async list(): Promise<ServiceDetail[]> {
      return (await store.list()).map(detail);
    },

    /** One service, or a not_found error naming it. */
    async show(rawName: string): Promise<ServiceDetail> {
      const name = validateService(rawName);
      const row = name === null ? undefined : (await store.list()).find((r) => r.name === name);
      if (!row) {
        throw new AppError(
          'not_found',
          `service "${rawName}" is not known (no event, memory or cooldown names it)`,
          {
            data: { field: 'service' },
          },
        );
      }
      return detail(row);
    },

    isKnown(name: string): Promise<boolean> {
      return store.isKnown(name);
    },
  };
}

export type Services = ReturnType<typeof createServices>;
