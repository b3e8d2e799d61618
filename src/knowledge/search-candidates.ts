/**
 * The vector lists of the hybrid search: memories close in meaning to the query, and memories of
 * the services whose description is. (The lexical list is one FTS5 query in the store.)
 */
import type { SearchFilter, SearchStore, ServiceStore } from '../db/index.js';
import { dot } from '../memory/index.js';
import type { Embedding } from './embedding.js';
import { type AnnIndex, createAnnIndex } from './vector-ann.js';
import { rankExact } from './vector-index.js';

/** How many candidates each list contributes to the fusion. */
export const CANDIDATES = 200;
/**
 * How wide the vector index searches; its nearest CANDIDATES are re-ranked exactly
 * (bench/search-speed.js measures the recall against an exact scan).
 */
const BREADTH = 400;
/** How many services whose description matches contribute their memories to the fusion. */
const SERVICE_LIST_SERVICES = 3;
/** A filter that selects at most this many memories is scanned exactly. */
const EXACT_SCAN_MAX = 5000;

export function createCandidateLists(deps: {
  search: SearchStore;
  services: ServiceStore;
  embedding: Embedding;
}) {
  const { search, services, embedding } = deps;
  let index: AnnIndex | null = null;

  const vectorIndex = (dimension: number): AnnIndex => {
    const model = embedding.model!;
    if (!index || index.dimension !== dimension || index.model !== model) {
      index = createAnnIndex(search, model, dimension, search.vectorIndexFile);
    }
    return index;
  };

  // Vectors of what each service is (its description), by name; redone when it changes.
  const serviceVectors = new Map<string, { updatedAt: number; vector: Float32Array }>();

  return {
    vectorIndex,

    /**
     * Memories of the services whose description is close in meaning to the query ("my movies
     * won't stream" -> jellyfin, "a media server"), the closest services first: the third list of
     * the fusion. A service must be halfway between the floor and "related" to count.
     */
    async byService(query: Float32Array, filter: SearchFilter) {
      const described = await services.describedAwaited();
      const stale = described.filter((d) => serviceVectors.get(d.name)?.updatedAt !== d.updatedAt);
      if (stale.length > 0) {
        const vectors = await embedding.documents(stale.map((d) => d.description));
        if (!vectors) return [];
        stale.forEach((d, i) =>
          serviceVectors.set(d.name, { updatedAt: d.updatedAt, vector: vectors[i]! }),
        );
      }
      const close = described
        .map((d) => ({ name: d.name, cosine: dot(query, serviceVectors.get(d.name)!.vector) }))
        // Query-to-description cosines run lower than memory-to-memory ones (a description is
        // general): between the floor and "related" (0.49-0.57 for matching ops queries here).
        .filter((s) => s.cosine >= (embedding.thresholds.floor + embedding.thresholds.related) / 2)
        .filter((s) => filter.service === undefined || filter.service === s.name)
        .sort((a, b) => b.cosine - a.cosine)
        .slice(0, SERVICE_LIST_SERVICES);
      // Each service's memories read at once; the closest service's come first.
      const ids = await Promise.all(
        close.map((s) => search.idsOfServiceAwaited(s.name, filter, CANDIDATES)),
      );
      return close
        .flatMap((s, i) => ids[i]!.map((id) => ({ id, serviceCosine: s.cosine })))
        .slice(0, CANDIDATES);
    },

    /**
     * Vector candidates within the filter, best first (exact cosine). A filter that selects a
     * few memories is scanned exactly. A service, category or scope usually does, so it is
     * counted first; this instance's visibility alone rarely does (a fleet's store), so its count
     * is read beside the index's candidates (awaited, at once: with PostgreSQL on another host,
     * one round trip's wait).
     */
    async semantic(query: Float32Array, filter: SearchFilter) {
      const model = embedding.model!;
      const exact = async () => {
        const rows = await search.vectorsWhereAwaited(filter, model, EXACT_SCAN_MAX);
        return rankExact(
          query,
          rows.map((r) => [r.memoryId, r.vector] as [number, Uint8Array]),
          CANDIDATES,
        );
      };
      const few = async () =>
        (await search.countWhereAwaited(filter, EXACT_SCAN_MAX)) <= EXACT_SCAN_MAX;
      const narrowed =
        filter.service !== undefined ||
        filter.category !== undefined ||
        filter.scopes !== undefined;
      const visibility =
        !narrowed && filter.visibleTo !== undefined && search.hasOtherInstances(filter.visibleTo);
      if (search.vectorsInDatabase) {
        // pgvector: PostgreSQL compares the vectors and answers ids and exact cosines, its index
        // searched as wide as this process's own (the nearest BREADTH, then the filter).
        const nearest = (breadth: number | null) =>
          search.nearestAwaited(query, model, filter, CANDIDATES, breadth);
        if (narrowed && (await few())) return nearest(null);
        const [isFew, hits] = await Promise.all([visibility ? few() : false, nearest(BREADTH)]);
        return isFew ? nearest(null) : hits;
      }
      if (narrowed && (await few())) return exact();
      const ann = vectorIndex(query.length);
      const coarse = ann.candidates(query, CANDIDATES, BREADTH);
      const [isFew, vectors, allowed] = await Promise.all([
        visibility ? few() : false,
        search.vectorsOfAwaited(coarse, model),
        search.idsWhereAwaited(coarse, filter),
      ]);
      if (isFew) return exact();
      // The store is the truth: a candidate without a vector there was deleted or is pending.
      ann.forget(coarse.filter((id) => !vectors.has(id)));
      for (const id of vectors.keys()) if (!allowed.has(id)) vectors.delete(id);
      return rankExact(query, vectors, CANDIDATES);
    },
  };
}
