/**
 * `watchkeeper import-claudeops DB [--dry-run] [--json]`: a Claude Ops (Go sidecar) database's
 * sessions, events, memories and cooldown actions, imported once each, with a report.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

import {
  type ClaudeOpsImportReport,
  type ImportKind,
  type ImportRemark,
  readClaudeOpsDatabase,
} from '../../db/index.js';
import { AppError } from '../../errors.js';
import {
  DEFAULT_POLICY,
  nextDecayAt,
  roundConfidence,
  weeksPastGrace,
} from '../../memory/index.js';
import { openApp } from '../app.js';
import { flag, parse, usageError } from '../args.js';
import { json, table } from '../format.js';
import type { CliIo } from '../io.js';

const LABELS: Record<ImportKind, string> = {
  session: 'sessions',
  event: 'events',
  memory: 'memories',
  cooldown: 'cooldown actions',
};
const ONE: Record<ImportKind, string> = {
  session: 'session',
  event: 'event',
  memory: 'memory',
  cooldown: 'cooldown action',
};

/**
 * A memory keeps the confidence Claude Ops gave it and decays from when it last changed there, on
 * watchkeeper's weekly steps: the base is set so that decay at the import gives that confidence
 * (no drop at the import, no fresh grace period), and the next step falls on the week it would.
 */
export function importedDecayState(m: { confidence: number; lastChangedAt: number; now: number }) {
  const weeks = weeksPastGrace(m.lastChangedAt, m.now, DEFAULT_POLICY);
  return {
    baseConfidence: roundConfidence(m.confidence + weeks * DEFAULT_POLICY.decayPerWeek),
    nextDecayAt: nextDecayAt(m.lastChangedAt, m.now, DEFAULT_POLICY),
  };
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}

export async function importClaudeOpsCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } }, 1);
  const path = p.positionals[0];
  if (path === undefined) {
    throw usageError(
      'give the Claude Ops database, e.g. watchkeeper import-claudeops /state/claudeops.db',
    );
  }
  const app = openApp(io);
  try {
    if (sameFile(path, app.config.dbPath)) {
      throw new AppError('invalid_input', `${path} is watchkeeper's own database`);
    }
    const source = readClaudeOpsDatabase(path);
    let report: ClaudeOpsImportReport;
    try {
      report = app.stores.claudeOpsImport.importDatabase(source, {
        now: io.clock.now(),
        dryRun: flag(p, 'dry-run'),
        decayState: importedDecayState,
        memoryInstance: (m) => app.knowledge.memory.instanceFor(m.service, m.category),
      });
    } finally {
      source.close();
    }
    if (flag(p, 'json')) {
      io.stdout(json(reportJson(report)));
      return 0;
    }
    io.stdout(reportText(report, app.config.embeddings.backend !== 'off'));
    return 0;
  } finally {
    await app.close();
  }
}

function remarkLines(remarks: ImportRemark[]): string {
  return remarks
    .map((r) => {
      const ids = r.sourceIds.join(', ') + (r.count > r.sourceIds.length ? ', ...' : '');
      const what = `${r.count} ${r.count === 1 ? ONE[r.kind] : LABELS[r.kind]}`;
      return `  ${what} (Claude Ops ${r.count === 1 ? 'id' : 'ids'} ${ids}): ${r.message}\n`;
    })
    .join('');
}

function reportText(r: ClaudeOpsImportReport, embeddings: boolean): string {
  const kinds = Object.keys(LABELS) as ImportKind[];
  let out = `Claude Ops database ${r.path}${r.schemaVersion === null ? '' : ` (schema version ${r.schemaVersion})`}\n`;
  if (r.dryRun) out += 'Dry run: nothing was written. An import would do this:\n';
  out += '\n';
  out += table(
    ['', 'found', r.dryRun ? 'to import' : 'imported', 'imported before', 'skipped'],
    kinds.map((k) => {
      const c = r.counts[k];
      return [LABELS[k], String(c.found), String(c.imported), String(c.already), String(c.skipped)];
    }),
  );
  if (r.problems.length > 0)
    out += `\nSkipped (fix them and import again to add them):\n${remarkLines(r.problems)}`;
  if (r.notes.length > 0) out += `\nImported with a change:\n${remarkLines(r.notes)}`;
  if (r.notImported.length > 0) {
    out += '\nNot imported:\n';
    for (const t of r.notImported)
      out += `  ${t.table} (${t.rows} row${t.rows === 1 ? '' : 's'}): ${t.why}\n`;
  }
  const memories = r.counts.memory.imported;
  if (!r.dryRun && memories > 0 && embeddings) {
    out += `\n${memories} imported memor${memories === 1 ? 'y is' : 'ies are'} found by words now, and by meaning once embedded: \`watchkeeper serve\` does it in the background, \`watchkeeper reindex --pending\` now.\n`;
  }
  return out;
}

function reportJson(r: ClaudeOpsImportReport) {
  const remark = (x: ImportRemark) => ({
    kind: x.kind,
    message: x.message,
    count: x.count,
    source_ids: x.sourceIds,
  });
  return {
    path: r.path,
    schema_version: r.schemaVersion,
    dry_run: r.dryRun,
    counts: Object.fromEntries(
      (Object.keys(LABELS) as ImportKind[]).map((k) => [
        k,
        {
          found: r.counts[k].found,
          imported: r.counts[k].imported,
          imported_before: r.counts[k].already,
          skipped: r.counts[k].skipped,
        },
      ]),
    ),
    skipped: r.problems.map(remark),
    notes: r.notes.map(remark),
    not_imported: r.notImported,
  };
}
