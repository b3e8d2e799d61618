/**
 * A small SQLite store with a row in every table that references another (sessions, events,
 * memories and their history, cooldowns, conversations, the memory graph, imports and
 * notifications), for the `migrate-store` tests; and the PostgreSQL migrations to give a target.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterEach } from 'vitest';

import { openStores } from '../../src/db/index.js';
import { migratedSqliteFile } from './db.js';
import { type AsyncFreshDatabase, freshDatabase } from './postgres.js';

/**
 * Targets (fresh PostgreSQL databases) and sources (populated stores) for one test file, each
 * removed after its test, with `cleanups` for anything else the test opens.
 */
export function copyFixtures() {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    cleanups,
    async target(): Promise<AsyncFreshDatabase> {
      const db = await freshDatabase();
      cleanups.push(() => db.drop());
      return db;
    },
    store(label = 'a'): string {
      const path = populatedStore(label);
      cleanups.push(() => rmSync(dirname(path), { recursive: true, force: true }));
      return path;
    },
  };
}

/** Writes the store into a new folder; returns the file's path. */
export function populatedStore(label = 'a'): string {
  const dir = mkdtempSync(join(tmpdir(), `watchkeeper-copy-${label}-`));
  const path = join(dir, 'watchkeeper.db');
  migratedSqliteFile(path);
  const stores = openStores(path);
  const t = 1_700_000_000_000;
  const vector = Buffer.from(new Float32Array([0.25, -0.5, 1]).buffer);
  try {
    stores.db.exec(`
      INSERT INTO gateway_jobs (id, kind, backend, model, outcome, ref, created_at)
        VALUES (1, 'summary', 'cli', 'haiku', 'ok', 'conversation c1 summary #1 (0-1)', ${t});
      INSERT INTO sessions (id, status, trigger, tier, started_at, ended_at, log_path,
          usage_json, cost_usd, summary_job_id, simulated)
        VALUES (1, 'completed', 'scheduled', 1, ${t}, ${t + 5000}, 'sessions/1.ndjson',
          '{"input_tokens": 12, "output_tokens": 3}', 0.0125, 1, 0),
        (2, 'escalated', 'escalation', 2, ${t + 6000}, ${t + 9000}, 'sessions/2.ndjson',
          NULL, NULL, NULL, 1);
      UPDATE sessions SET parent_session_id = 1 WHERE id = 2;
      INSERT INTO events (session_id, source, level, service, message, created_at) VALUES
        (1, 'agent', 'warning', 'postgres', 'replication lag 30 s', ${t + 100}),
        (2, 'agent', 'warning', 'postgres', 'replication lag 30 s', ${t + 6100}),
        (NULL, 'system', 'info', NULL, 'watchkeeper started', ${t - 100});
      INSERT INTO memories (id, service, category, observation, confidence, base_confidence,
          created_at, updated_at, last_reinforced_at, session_id, tier, instance) VALUES
        (1, 'postgres', 'timing', 'vacuum runs at 02:00', 0.8, 0.8, ${t}, ${t}, ${t}, 1, 1, 'local'),
        (2, 'postgres', 'timing', 'vacuum runs at 2am', 0.5, 0.5, ${t}, ${t}, ${t}, 1, 1, 'fleet'),
        (3, NULL, 'behavior', 'the disk fills on Mondays', 0.6, 0.6, ${t}, ${t}, ${t}, 2, 2, 'local');
      UPDATE memories SET superseded_by = 1, active = 0 WHERE id = 2;
      UPDATE memories SET merged_into = 1 WHERE id = 3;
      INSERT INTO memory_history (memory_id, action, new_confidence, session_id, created_at,
          related_memory_id) VALUES
        (1, 'created', 0.8, 1, ${t}, NULL), (2, 'superseded', 0.5, 1, ${t + 1}, 1),
        (99, 'deleted', NULL, NULL, ${t + 2}, NULL);
      INSERT INTO memory_tombstones (memory_id, content_hash, deleted_at, deleted_by, instance)
        VALUES (99, '${'ab'.repeat(32)}', ${t + 2}, 'cli (ops)', 'local');
      INSERT INTO memory_vectors (memory_id, model, dimension, vector, created_at)
        VALUES (1, 'test-model', 3, x'${vector.toString('hex')}', ${t});
      INSERT INTO services (name, description, description_source, created_at, updated_at)
        VALUES ('postgres', 'the main database', 'operator', ${t}, ${t});
      INSERT INTO session_memories (session_id, memory_id, via, score, created_at)
        VALUES (1, 1, 'context', 0.9, ${t});
      INSERT INTO cooldown_actions (service, action_type, success, source, session_id, created_at)
        VALUES ('postgres', 'restart', 1, 'agent', 1, ${t + 200});
      INSERT INTO cooldown_blocks (service, action_type, command, reason, session_id, created_at)
        VALUES ('postgres', 'restart', 'docker restart pg', 'limit reached', 2, ${t + 6200});
      INSERT INTO cooldown_overrides (service, action_type, kind, extra, until_at, actor, reason,
          created_at) VALUES ('postgres', 'restart', 'allow', 2, ${t + 86400000}, 'ops', 'maintenance', ${t});
      INSERT INTO service_checks (session_id, service, health, source, created_at)
        VALUES (1, 'postgres', 'degraded', 'marker', ${t + 300});
      INSERT INTO session_alert_repeats (session_id, repeats, last_at) VALUES (2, 3, ${t + 7000});
      INSERT INTO notifications (id, kind, level, service, title, body, dedup_key, session_id,
          fanned_out, created_at, last_seen_at)
        VALUES (1, 'escalation', 'warning', 'postgres', 'escalated', 'tier 2', 'k1', 2, 1, ${t}, ${t});
      INSERT INTO notification_deliveries (notification_id, target_key, status, attempts,
          created_at, updated_at) VALUES (1, 'ntfy://***', 'sent', 1, ${t}, ${t});
      INSERT INTO conversations (id, scope, created_at, updated_at, last_seq, message_count,
          extract_instance, extract_until)
        VALUES ('c1-${label}', 'team', ${t}, ${t}, 1, 2, 'local', ${t + 60000});
      INSERT INTO conversation_messages (conversation_id, seq, role, content, created_at) VALUES
        ('c1-${label}', 0, 'user', 'we moved the backups to 03:00', ${t}),
        ('c1-${label}', 1, 'assistant', 'noted', ${t + 1});
      INSERT INTO conversation_summaries (conversation_id, summary_text, start_seq, end_seq,
          status, job_id, created_at) VALUES ('c1-${label}', 'backups at 03:00', 0, 1, 'completed', 1, ${t});
      INSERT INTO extraction_windows (conversation_id, start_seq, end_seq, tokens, status, worth,
          gate_job_id, extract_job_id, created_at)
        VALUES ('c1-${label}', 0, 1, 40, 'extracted', 1, 1, 1, ${t});
      INSERT INTO conversation_memories (conversation_id, window_id, memory_id, action, type,
          importance, tags_json, created_at)
        VALUES ('c1-${label}', 1, 3, 'created', 'fact', 3, '["backup"]', ${t});
      INSERT INTO memory_scopes (name, shared_with_ops, updated_at) VALUES ('team', 1, ${t});
      INSERT INTO graph_sessions (session, kind, title, watchkeeper_session_id, first_at, last_at)
        VALUES ('wk-1', 'watchkeeper', 'scheduled check', 1, ${t}, ${t + 5000}),
        ('0b7c-${label}', 'claude-code', 'a chat', NULL, ${t}, ${t});
      INSERT INTO index_state (file_path, session, byte_offset, last_line, last_indexed)
        VALUES ('/data/sessions/1.ndjson', 'wk-1', 1234, 10, ${t});
      INSERT INTO spans (id, session, parent_id, name, source_file, start_line, depth, created_at)
        VALUES (1, 'wk-1', NULL, 'replication', '/data/sessions/1.ndjson', 1, 0, ${t}),
        (2, 'wk-1', 1, 'lag', '/data/sessions/1.ndjson', 2, 1, ${t});
      INSERT INTO ideas (id, span_id, session, content, intent, role, source_file, source_line,
          created_at) VALUES
        (1, 2, 'wk-1', 'lag comes from the nightly vacuum', 'conclusion', 'assistant',
          '/data/sessions/1.ndjson', 3, ${t}),
        (2, 2, 'wk-1', 'move vacuum to 03:00', 'decision', 'user', '/data/sessions/1.ndjson', 4, ${t});
      UPDATE ideas_fts SET turn = 'the nightly vacuum holds locks', near = 'replication lag'
        WHERE rowid = 1;
      UPDATE event_groups SET acked_at = ${t + 200}, acked_by = 'ops'
        WHERE message = 'replication lag 30 s';
      INSERT INTO entities (id, name, type) VALUES (1, 'PostgreSQL', 'technology'),
        (2, 'vacuum-${label}', 'concept');
      INSERT INTO entity_aliases (alias, entity_id) VALUES ('postgres', 1), ('pg', 1);
      INSERT INTO idea_entities (idea_id, entity_id) VALUES (1, 1), (1, 2), (2, 2);
      INSERT INTO relations (from_id, to_id, relation_type, created_at)
        VALUES (2, 1, 'builds_on', ${t});
      INSERT INTO idea_vectors (idea_id, model, dimension, vector, created_at)
        VALUES (1, 'test-model', 3, x'${vector.toString('hex')}', ${t});
      INSERT INTO span_vectors (span_id, model, dimension, vector, created_at)
        VALUES (2, 'test-model', 3, x'${vector.toString('hex')}', ${t});
      INSERT INTO memory_entities (memory_id, entity_id) VALUES (1, 1), (1, 2);
      INSERT INTO entity_relations (from_id, to_id, relation_type, created_at)
        VALUES (2, 1, 'runs_on', ${t});
      INSERT INTO memory_imports (origin, key, kind, target_id, imported_at) VALUES
        ('watchkeeper', 'k-${label}', 'memory', 3, ${t}),
        ('mcp-memory', 'entity:vacuum-${label}', 'entity', 2, ${t});
      INSERT INTO claudeops_imports (source, kind, source_id, target_id, detail_json, imported_at)
        VALUES ('db-${label}', 'session', 7, 2, '{"summary": "imported"}', ${t}),
        ('db-${label}', 'event', 8, 3, NULL, ${t});
    `);
  } finally {
    stores.close();
  }
  return path;
}
