import { availableParallelism } from 'node:os';

import { defineConfig } from 'vitest/config';

/** Options both projects share. */
const shared = {
  environment: 'node',
  // A worker runs its files one after another in one process instead of a fresh module graph
  // per file: the source is loaded once per worker rather than once per file (about a third of
  // the suite's time), and so is the local model (test/helpers/knowledge.ts). No file relies on
  // module state of its own: stores, servers and clocks are made per test.
  isolate: false,
  // A test's deadline only catches a hang. Tests that start real processes (serve, the Claude
  // CLI, chromium, PostgreSQL) take ten times longer on a 2-core machine that is busy with other
  // work, and still pass: the deadline is far beyond any of them.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // expect.poll waits for what another process or thread does: on a busy machine that takes
  // longer than vitest's 1 s default. It returns as soon as the assertion holds.
  expect: { poll: { timeout: 60_000 } },
} as const;

/**
 * The store-level suites that run a second time on PostgreSQL: files whose stores come from
 * testApp() (test/helpers/db.ts) and that start no serve process.
 */
const POSTGRES_SUITES = [
  'test/db/claudeops-import.test.ts',
  'test/db/fleet-instances.test.ts',
  'test/db/metrics.test.ts',
  'test/db/operator-controls.test.ts',
  'test/db/postgres-server.test.ts',
  'test/db/background-loop.test.ts',
  'test/db/stats.test.ts',
  'test/db/surfacing.test.ts',
  'test/web/polled-pages-awaited.test.ts',
  'test/web/curation-awaited.test.ts',
  'test/web/import-child.test.ts',
  'test/knowledge/memory-archive.test.ts',
  'test/knowledge/memory-service.test.ts',
  'test/knowledge/memory-judge.test.ts',
  'test/knowledge/scopes.test.ts',
  'test/knowledge/search.test.ts',
  'test/knowledge/search-evidence.test.ts',
  'test/knowledge/vector-index-file.test.ts',
  'test/knowledge/fleet-scope.test.ts',
  'test/graph/remember.test.ts',
  'test/graph/indexing.test.ts',
  'test/conversations/extraction.test.ts',
  'test/conversations/summaries.test.ts',
  'test/conversations/fleet-extraction.test.ts',
  'test/conversations/append-awaited.test.ts',
  'test/db/fleet-background.test.ts',
  'test/notify/fleet-delivery.test.ts',
  'test/graph/fleet-index.test.ts',
  'test/gateway/gateway.test.ts',
  'test/gateway/openai-backend.test.ts',
  'test/graph/incremental.test.ts',
  'test/graph/repeats.test.ts',
  'test/notify/delivery.test.ts',
  'test/runner/ingest.test.ts',
  'test/web/session-detail-awaited.test.ts',
  'test/graph/graph-pages-awaited.test.ts',
  'test/runner/mcp-tool-guard.test.ts',
  'test/runner/pre-tool-use.test.ts',
  // These run the CLI in-process on the test app's database (test/helpers/cli.ts).
  'test/portability/import-dedup.test.ts',
  'test/portability/import-history.test.ts',
  'test/portability/import-validation.test.ts',
  'test/portability/mcp-memory.test.ts',
  'test/portability/merge.test.ts',
  'test/portability/round-trip.test.ts',
  // Not here: test/stream/fuzz.test.ts (PostgreSQL text cannot hold NUL characters, which the
  // fuzzed transcripts carry); suites whose stores are SQLite files of their own (test/cli/*,
  // test/db/migrate*, runnerHarness) would only run on SQLite again.
];

export default defineConfig({
  test: {
    // The run's temporary folders in memory when there is room (first: the server's folder is
    // one of them), then one PostgreSQL server for the whole run (both projects); see the files.
    globalSetup: ['test/global-tmpdir.ts', 'test/global-postgres.ts'],
    // Vitest's default leaves a core free, which is one worker on 2 cores. Much of the suite
    // waits on child processes, PostgreSQL and the browser (a run on 2 workers kept the 2 cores
    // busy 59% of the time), so two workers per core (both projects sharing them) keep the cores
    // busy: 185 s on 2 workers, 144 s on 4, on 2 cores. At most 8: each worker loads the local
    // model once. No test depends on how busy the machine is.
    maxWorkers: Math.min(8, 2 * Math.max(1, availableParallelism())),
    projects: [
      {
        test: {
          ...shared,
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          env: { WATCHKEEPER_TEST_ENGINE: 'sqlite' },
          setupFiles: ['test/setup-each-file.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'postgres',
          include: POSTGRES_SUITES,
          env: { WATCHKEEPER_TEST_ENGINE: 'postgres' },
          setupFiles: ['test/setup-postgres-project.ts'],
        },
      },
    ],
  },
});
