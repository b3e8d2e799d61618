/**
 * `watchkeeper migrate-store --from FILE --to URL [--instance NAME] [--json]`: moves a SQLite
 * store's history into the fleet's PostgreSQL database under an instance name, with progress on
 * stderr, resumable, and verified table by table (counts and checksums) at the end.
 */
import {
  checkCopySource,
  checkPostgresUrl,
  connectCopyTarget,
  copyStore,
  migrateCopyTarget,
  openCopySource,
  prepareCopy,
  redactUrl,
  type TableCheck,
  verifyCopy,
} from '../../db/index.js';
import { AppError } from '../../errors.js';
import { flag, parse, str, usageError } from '../args.js';
import { json, table } from '../format.js';
import type { CliIo } from '../io.js';
import { progressReporter } from '../progress.js';

const INSTANCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function instanceOf(given: string | undefined, env: Record<string, string | undefined>): string {
  const name = (given ?? env.WATCHKEEPER_INSTANCE ?? 'local').trim() || 'local';
  const from = given === undefined ? 'WATCHKEEPER_INSTANCE' : '--instance';
  if (!INSTANCE.test(name)) {
    throw usageError(
      `${from} must be a name of letters, digits, ".", "_" and "-" (at most 63), such as cluster-a; got "${name}"`,
    );
  }
  if (name === 'fleet')
    throw usageError(`${from} cannot be "fleet" (the scope of shared memories)`);
  return name;
}

const count = (n: number) => n.toLocaleString('en-US');

export async function migrateStoreCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, {
    from: { type: 'string' },
    to: { type: 'string' },
    instance: { type: 'string' },
    json: { type: 'boolean' },
  });
  const from = str(p, 'from');
  const to = str(p, 'to');
  if (!from) throw usageError('give the SQLite store to copy with --from FILE');
  if (!to) throw usageError('give the PostgreSQL database to copy into with --to postgres://...');
  const instance = instanceOf(str(p, 'instance'), io.env);
  const asJson = flag(p, 'json');
  const started = io.clock.now();

  // What is wrong with the arguments is said before the server is reached or the store changed.
  checkPostgresUrl(to);
  checkCopySource(from);
  const pool = await connectCopyTarget(to);
  try {
    const source = openCopySource(from);
    try {
      if (source.migrated.length > 0) {
        io.stderr(
          `migrated the store to this version first (${source.migrated.length} migration(s): ${source.migrated.join(', ')})\n`,
        );
      }
      const targetMigrated = migrateCopyTarget(to);
      if (targetMigrated.length > 0) {
        io.stderr(`migrated the target database first (${targetMigrated.length} migration(s))\n`);
      }
      const prepared = await prepareCopy(source.db, pool);
      const copyStarted = io.clock.now();
      let bar: ReturnType<typeof progressReporter> | null = null;
      let barTable = '';
      const { result, plan } = await copyStore(
        {
          source: source.db,
          sourceName: source.path,
          pool,
          instance,
          now: () => io.clock.now(),
          onProgress: (name, done, total) => {
            if (barTable !== name) {
              bar = progressReporter(io, name);
              barTable = name;
            }
            // Elsewhere than a terminal: one line per table, when it is done.
            if (io.stderrIsTty || done >= total) bar!.update(done, total);
          },
          onTableDone: () => bar?.end(),
        },
        prepared,
      );
      if (result.alreadyCopied) {
        io.stderr(
          `instance ${instance} already holds this store's copy (finished earlier); verifying it again\n`,
        );
      }
      const copied = io.clock.now();
      const checks = await verifyCopy(source.db, pool, plan);
      const seconds = Math.max(1, io.clock.now() - started) / 1000;
      const rows = result.tables.reduce((n, t) => n + t.copiedNow, 0);
      const failed = checks.filter((c) => !c.ok);
      const byTable = new Map(result.tables.map((t) => [t.table, t]));
      const report = {
        from: source.path,
        to: redactUrl(to),
        instance,
        source_migrations_applied: source.migrated,
        resumed: result.resumed,
        already_copied: result.alreadyCopied,
        rows_copied: rows,
        seconds,
        copy_seconds: (copied - copyStarted) / 1000,
        verify_seconds: (io.clock.now() - copied) / 1000,
        rows_per_second: Math.round(rows / Math.max(0.001, (copied - copyStarted) / 1000)),
        verified: failed.length === 0,
        tables: checks.map((c: TableCheck) => ({
          table: c.table,
          source_rows: byTable.get(c.table)?.sourceRows ?? c.sourceRows,
          copied_rows: c.targetRows,
          kept_target_rows: byTable.get(c.table)?.kept ?? 0,
          id_offset: byTable.get(c.table)?.idOffset ?? 0,
          checksum: c.targetChecksum,
          ok: c.ok,
        })),
      };
      if (asJson) io.stdout(json(report));
      else {
        io.stdout(
          table(
            ['table', 'rows', 'in target', 'kept', 'id offset', 'checksum'],
            checks.map((c) => {
              const t = byTable.get(c.table);
              return [
                c.table,
                count(t?.sourceRows ?? c.sourceRows),
                count(c.targetRows),
                count(t?.kept ?? 0),
                count(t?.idOffset ?? 0),
                c.ok ? 'ok' : 'DIFFERS',
              ];
            }),
          ),
        );
        io.stdout(
          `${result.alreadyCopied ? 'nothing left to copy' : `copied ${count(rows)} rows${result.resumed ? ' (resumed)' : ''}`} into ${redactUrl(to)} as instance ${instance} in ${seconds.toFixed(1)} s (${count(report.rows_per_second)} rows/s); ${failed.length === 0 ? 'verified' : 'NOT verified'}\n`,
        );
      }
      if (failed.length > 0) {
        throw new AppError(
          'copy_failed',
          `verification failed: ${failed
            .map(
              (c) =>
                `${c.table} (${c.sourceRows} rows in the store, ${c.targetRows} in the target${c.sourceRows === c.targetRows ? ', checksums differ' : ''})`,
            )
            .join('; ')}`,
        );
      }
      return 0;
    } finally {
      source.close();
    }
  } finally {
    await pool.end();
  }
}
