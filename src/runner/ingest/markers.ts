/**
 * One marker into its rows: events (critical ones also alert), memories (through the memory
 * queue), service descriptions, cooldown reports; escalations and health checks are collected
 * for the end of the session; a rejected or unknown marker is reported as a system warning.
 */
import type { Clock } from '../../clock.js';
import type { ServiceCheck, Stores } from '../../db/index.js';
import type { Knowledge } from '../../knowledge/index.js';
import { isCategory } from '../../memory/index.js';
import type { Marker } from '../../stream/index.js';
import { emitAlert, type OnAlert } from '../alerts.js';
import type { createMemoryWrites } from './memory-writes.js';
import type { EscalationRequest, IngestCounts, RowWrite } from './types.js';

export interface MarkerSink {
  stores: Stores;
  knowledge: Knowledge;
  clock: Clock;
  sessionId: number;
  tier: number;
  onAlert?: OnAlert;
  counts: IngestCounts;
  escalations: EscalationRequest[];
  healthMarkers: ServiceCheck[];
  memories: ReturnType<typeof createMemoryWrites>;
  /** A row write: awaited in order in a live session, else at once (ingest.ts). */
  store: <T>(what: unknown, write: RowWrite<T>) => void;
  systemEvent: (level: 'info' | 'warning', service: string | null, message: string) => void;
}

export function ingestMarker(s: MarkerSink, marker: Marker): void {
  const { stores, clock, sessionId, tier, counts, store } = s;
  switch (marker.kind) {
    case 'event': {
      const event = {
        sessionId,
        source: 'agent' as const,
        level: marker.level,
        service: marker.service,
        message: marker.message,
        createdAt: clock.now(),
      };
      store(marker, {
        now: () => stores.events.insert(event),
        awaited: () => stores.events.insertAwaited(event),
        stored: () => (counts.events += 1),
      });
      if (marker.level === 'critical') {
        emitAlert(s.onAlert, {
          kind: 'critical_event',
          service: marker.service,
          message: marker.message,
          sessionId,
          tier,
        });
      }
      return;
    }
    case 'memory': {
      if (!isCategory(marker.category)) {
        counts.rejected += 1;
        s.systemEvent(
          'warning',
          marker.service,
          `Session ${sessionId}: memory with unknown category "${marker.category}" not stored: ${marker.observation}`,
        );
        return;
      }
      s.memories.enqueue(marker, {
        service: marker.service === 'general' ? null : marker.service,
        category: marker.category,
        observation: marker.observation,
      });
      return;
    }
    case 'service':
      store(marker, {
        now: () => s.knowledge.services.describe(marker.service, marker.description, 'agent'),
        awaited: () =>
          s.knowledge.services.describeAwaited(marker.service, marker.description, 'agent'),
        stored: (written) => {
          if (written) counts.servicesDescribed += 1;
        },
      });
      return;
    case 'cooldown': {
      const outcome = {
        service: marker.service,
        actionType: marker.action,
        success: marker.success,
        message: marker.message || null,
        tier,
        sessionId,
        createdAt: clock.now(),
      };
      store(marker, {
        now: () => stores.cooldowns.report(outcome),
        awaited: () => stores.cooldowns.reportAwaited(outcome),
        stored: () => (counts.cooldowns += 1),
      });
      return;
    }
    case 'escalate':
      s.escalations.push({ tier: marker.tier, reason: marker.reason });
      return;
    case 'health':
      s.healthMarkers.push({
        service: marker.service,
        health: marker.health,
        detail: marker.detail,
        source: 'marker',
      });
      return;
    case 'rejected':
      counts.rejected += 1;
      s.systemEvent(
        'warning',
        null,
        `Session ${sessionId}: ${marker.markerKind} marker not stored (${marker.reason}): ${marker.line}`,
      );
      return;
  }
}
