/**
 * `watchkeeper graph ...`: the memory graph of seed 004 from the command line. `index` backfills
 * (with a progress bar and the time left), `remember` recalls within a token budget, `stats`,
 * `topics` and `idea` show what is stored. The Claude Code plugin's skills call these.
 */
import { AppError, isAppError } from '../../errors.js';
import { createBackend, createGateway, type Gateway } from '../../gateway/index.js';
import {
  countNewLines,
  currentTranscripts,
  countsJson,
  createGraph,
  DEFAULT_BUDGET,
  day,
  fileIdentity,
  gatewayModel,
  type Graph,
  ideaViewJson,
  type IndexOutcome,
  indexReportJson,
  rememberJson,
  sessionLabel,
  sessionViewJson,
  type TopicNode,
  transcriptFiles,
  viaText,
} from '../../graph/index.js';
import { openApp } from '../app.js';
import { flag, parse, str, toInt, usageError } from '../args.js';
import { clip, json, shortTime, table } from '../format.js';
import type { CliIo } from '../io.js';
import { progressReporter } from '../progress.js';

export const GRAPH_USAGE = `watchkeeper graph index PATH|DIR...|--current|--all [--dry-run] [--model] [--json]
  Index transcripts into the memory graph: Claude Code's (~/.claude/projects/**/*.jsonl,
  subagents included) and watchkeeper's session logs (data/sessions/*.ndjson). Only what was
  appended since the last run is read. --current: the session being written in this folder;
  --all: both places and WATCHKEEPER_GRAPH_ROOTS. --model: topic names, summaries and
  ideas by the model gateway (offline rules otherwise, and whenever a job fails).
watchkeeper graph remember QUERY [--budget TOKENS] [--session S] [--hyde] [--json]
  Recall: ideas and their topics by meaning, words, entities and relations, within the budget
  (default ${DEFAULT_BUDGET} tokens). "decisions about X", "open questions", "problems with X",
  "last week", "yesterday", "in March" and "recently" narrow or order it. --hyde: a vague query
  is also searched with the answer the model gateway imagines for it.
watchkeeper graph stats [--json] | topics [SESSION] [--json] | idea ID [--json]`;

/** The graph over the data folder; with `useModel`, its jobs go through the model gateway. */
export function openGraph(io: CliIo, useModel = false) {
  const app = openApp(io);
  let gateway: Gateway | null = null;
  if (useModel) {
    if (app.config.gateway.backend === 'off') {
      void app.close();
      throw new AppError(
        'config_invalid',
        `--model: ${app.config.gateway.offReason ?? 'no model'}`,
        {
          data: { variable: 'WATCHKEEPER_GATEWAY' },
        },
      );
    }
    gateway = createGateway({
      config: app.config.gateway,
      backend: createBackend(app.config, io.env),
      jobs: app.stores.gatewayJobs,
      events: app.stores.events,
      clock: io.clock,
    });
  }
  const graph = createGraph({
    db: app.stores.db,
    embedding: app.knowledge.embedding,
    clock: io.clock,
    dataDir: app.config.dataDir,
    sessions: app.stores.sessions,
    maxLineBytes: app.config.maxLineBytes,
    instance: app.stores.instance,
    ...(gateway ? { model: gatewayModel(gateway, `gateway (${app.config.gateway.backend})`) } : {}),
  });
  return {
    app: {
      ...app,
      close: async () => {
        gateway?.close();
        await app.close();
      },
    },
    graph,
  };
}

async function filesToIndex(
  paths: string[],
  mode: { all: boolean; current: boolean },
  folders: { projects: string | null; sessionsDir: string; roots: string[] },
): Promise<string[]> {
  if (Number(mode.all) + Number(mode.current) + Number(paths.length > 0) !== 1) {
    throw usageError(
      'graph index needs transcript files or folders, --current or --all (one of them)',
    );
  }
  if (paths.length > 0) return transcriptFiles(paths);
  const { projects, sessionsDir } = folders;
  if (mode.current) {
    if (!projects)
      throw usageError('--current needs HOME (or CLAUDE_CONFIG_DIR) to find the transcripts');
    return currentTranscripts(projects, process.cwd());
  }
  const roots = [projects, sessionsDir, ...folders.roots].filter((p): p is string => p !== null);
  const found: string[] = [];
  for (const root of roots) {
    try {
      found.push(...(await transcriptFiles([root])));
    } catch (err) {
      if (!isAppError(err) || err.code !== 'input_unreadable') throw err;
    }
  }
  return found;
}

/** Lines not read yet in each file (the progress bar's total). */
async function pendingLines(graph: Graph, files: string[]): Promise<number> {
  let total = 0;
  for (const file of files) {
    try {
      const state = graph.stores.sources.state(file);
      const now = await fileIdentity(file, 0);
      const from = state && now.size >= state.byteOffset ? state.byteOffset : 0;
      total += await countNewLines(file, from, now.size);
    } catch {
      // Unreadable: reported when it is indexed.
    }
  }
  return total;
}

async function indexCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(
    argv,
    {
      all: { type: 'boolean' },
      current: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      model: { type: 'boolean' },
      // The Stop hook's indexer: reads the requests hooks left (graph-index-hook.ts).
      'until-text': { type: 'string' },
      'from-hook': { type: 'boolean' },
    },
    10_000,
  );
  if (flag(p, 'from-hook')) {
    const { indexFromHook } = await import('./graph-index-hook.js');
    return indexFromHook(io, { paths: p.positionals, untilText: str(p, 'until-text') ?? null });
  }
  const { app, graph } = openGraph(io, flag(p, 'model'));
  try {
    const files = await filesToIndex(
      p.positionals,
      { all: flag(p, 'all'), current: flag(p, 'current') },
      {
        projects: app.config.graph.claudeProjectsDir,
        sessionsDir: app.config.sessionsDir,
        roots: app.config.graph.roots,
      },
    );
    const dryRun = flag(p, 'dry-run');
    const total = await pendingLines(graph, files);
    const progress = progressReporter(io, dryRun ? 'reading' : 'indexing');
    let done = 0;
    const reports: IndexOutcome[] = [];
    let failed = 0;
    if (total > 0) progress.update(0, total);
    for (const file of files) {
      try {
        const untilText = str(p, 'until-text');
        reports.push(
          await graph.index(file, {
            dryRun,
            ...(untilText ? { untilText } : {}),
            onLines: (n) => {
              done += n;
              if (total > 0) progress.update(Math.min(done, total), total);
            },
          }),
        );
      } catch (err) {
        if (!isAppError(err)) throw err;
        failed += 1;
        io.stderr(`watchkeeper: ${err.message}\n`);
      }
    }
    if (total > 0) progress.end();
    const embedded = dryRun ? 0 : await graph.embedPending();
    const sum = (k: 'lines' | 'turns' | 'ideas' | 'spans' | 'relations') =>
      reports.reduce((n, r) => n + r[k], 0);
    const changed = reports.filter((r) => r.status !== 'unchanged');
    if (flag(p, 'json')) {
      io.stdout(
        json({
          files: reports.map(indexReportJson),
          failed,
          totals: {
            files: reports.length,
            changed: changed.length,
            lines: sum('lines'),
            turns: sum('turns'),
            ideas: sum('ideas'),
            spans: sum('spans'),
            relations: sum('relations'),
          },
          embedded_later: embedded,
        }),
      );
      return failed > 0 ? 1 : 0;
    }
    // A dry run reads and extracts but closes no topic and compares with nothing stored: it
    // cannot know spans or relations, so it does not print zeros for them.
    const built = (spans: number, relations: number) =>
      dryRun ? '' : `, ${spans} spans, ${relations} relations`;
    for (const r of changed) {
      const what =
        r.status === 'queued'
          ? 'another indexing job for this file is running; it reads these lines too'
          : `${r.lines} lines, ${r.turns} turns (${r.skipped} skipped), ${r.ideas} ideas${built(r.spans, r.relations)}`;
      io.stdout(
        `${r.status}${r.reset ? ' (rewritten: read again from the start)' : ''}: ${r.file}: ${what}${r.partialLine ? '; an unfinished last line waits for the next run' : ''}\n`,
      );
    }
    io.stdout(
      `${dryRun ? 'would index' : 'indexed'} ${changed.length} of ${reports.length} files (${reports.length - changed.length} unchanged): ` +
        `${sum('lines')} lines, ${sum('ideas')} ideas${built(sum('spans'), sum('relations'))}\n`,
    );
    return failed > 0 ? 1 : 0;
  } finally {
    await app.close();
  }
}

async function rememberCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(
    argv,
    {
      budget: { type: 'string' },
      session: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      hyde: { type: 'boolean' },
    },
    1,
  );
  const query = p.positionals[0];
  if (query === undefined || query.trim() === '') {
    throw usageError('graph remember needs a query (what to recall)');
  }
  const budget = toInt('--budget', str(p, 'budget') ?? String(DEFAULT_BUDGET), 50, 100_000);
  const { app, graph } = openGraph(io, flag(p, 'hyde'));
  try {
    const labels = (p.values.session as string[] | undefined) ?? [];
    const sessions = labels.map((l) => graph.views.resolveSession(l).session);
    const answer = await graph.remember(query, { budget, sessions });
    if (flag(p, 'json')) {
      io.stdout(json(rememberJson(answer)));
      return 0;
    }
    if (answer.mode === 'lexical' && app.knowledge.embedding.model) {
      io.stderr('embeddings are not answering: this recall is by words only\n');
    }
    io.stdout(answer.text);
    return 0;
  } finally {
    await app.close();
  }
}

function topicLines(nodes: TopicNode[], indent: string): string[] {
  return nodes.flatMap((n) => [
    `${indent}#${n.span.id}  lines ${n.span.startLine}-${n.span.endLine ?? '…'}  ${clip(n.span.name, 60)}  (${n.ideaCount} ideas)`,
    ...topicLines(n.children, `${indent}  `),
  ]);
}

async function topicsCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { json: { type: 'boolean' }, limit: { type: 'string' } }, 1);
  const { app, graph } = openGraph(io);
  try {
    const label = p.positionals[0];
    const labels = label
      ? [graph.views.resolveSession(label).session]
      : graph.stores.sources
          .list({ limit: toInt('--limit', str(p, 'limit') ?? '20', 1, 10_000) })
          .map((s) => s.session);
    const views = labels.map((l) => graph.views.session(l));
    if (flag(p, 'json')) {
      io.stdout(json(label ? sessionViewJson(views[0]!) : views.map(sessionViewJson)));
      return 0;
    }
    if (views.length === 0) {
      io.stdout('nothing indexed yet: run `watchkeeper graph index --all`\n');
      return 0;
    }
    for (const v of views) {
      const s = v.session;
      io.stdout(
        `${s.session}  ${s.kind}${s.project ? `, ${s.project}` : ''}${s.title ? `, "${clip(s.title, 60)}"` : ''}  ${shortTime(s.firstAt)} .. ${shortTime(s.lastAt)}\n`,
      );
      io.stdout(`${topicLines(v.topics, '  ').join('\n')}\n`);
    }
    return 0;
  } finally {
    await app.close();
  }
}

async function ideaCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { json: { type: 'boolean' } }, 1);
  if (p.positionals[0] === undefined) throw usageError('graph idea needs an idea id');
  const id = toInt('idea id', p.positionals[0], 1, Number.MAX_SAFE_INTEGER);
  const { app, graph } = openGraph(io);
  try {
    const v = graph.views.idea(id);
    if (flag(p, 'json')) {
      io.stdout(json(ideaViewJson(v)));
      return 0;
    }
    const i = v.idea;
    const lines = [
      `#${i.id} ${i.intent} (confidence ${i.confidence.toFixed(2)}${i.intent === 'question' ? (i.answered ? ', answered' : ', open') : ''}), said by the ${i.role} on ${day(i.createdAt)}`,
      `  ${i.content}`,
      `  from ${i.sourceFile}:${i.sourceLine} (${sessionLabel(v.session, i.session)})`,
    ];
    if (v.span) {
      lines.push(`  topic: ${v.topic ? `${v.topic.name} > ` : ''}${v.span.name} (#${v.span.id})`);
    }
    if (v.entities.length > 0) {
      lines.push(`  entities: ${v.entities.map((e) => `${e.name} (${e.type})`).join(', ')}`);
    }
    for (const r of v.related) {
      const text = viaText({ from: r.other.id, relation: r.relation.type, direction: r.direction });
      lines.push(`  ${text}: ${clip(r.other.content, 100)} (${day(r.other.createdAt)})`);
    }
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await app.close();
  }
}

async function statsCommand(argv: string[], io: CliIo): Promise<number> {
  const p = parse(argv, { json: { type: 'boolean' } });
  const { app, graph } = openGraph(io);
  try {
    const c = graph.stats();
    if (flag(p, 'json')) {
      io.stdout(json(countsJson(c)));
      return 0;
    }
    io.stdout(
      table(
        ['WHAT', 'COUNT'],
        [
          ['sessions', String(c.sessions)],
          ['files', String(c.files)],
          ['topics', String(c.topics)],
          ['spans (with sub-spans)', String(c.spans)],
          ['ideas', String(c.ideas)],
          ...Object.entries(c.byIntent).map(([k, n]) => [`  ${k}`, String(n)]),
          ['open questions', String(c.openQuestions)],
          ['entities', String(c.entities)],
          ['relations', String(c.relations)],
          ...Object.entries(c.byRelation).map(([k, n]) => [`  ${k}`, String(n)]),
          ['last indexed (UTC)', shortTime(c.lastIndexed)],
        ],
      ),
    );
    return 0;
  } finally {
    await app.close();
  }
}

export async function graphCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'index':
      return indexCommand(rest, io);
    case 'remember':
      return rememberCommand(rest, io);
    case 'stats':
      return statsCommand(rest, io);
    case 'topics':
      return topicsCommand(rest, io);
    case 'idea':
      return ideaCommand(rest, io);
    case 'hook': {
      const { graphHookCommand } = await import('./graph-hook.js');
      return graphHookCommand(rest, io);
    }
    default:
      throw usageError(`unknown graph command "${sub ?? ''}"; try:\n${GRAPH_USAGE}`);
  }
}
