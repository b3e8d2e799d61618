/** The `watchkeeper` command: dispatch, and the one place CLI errors are reported. */
import { isAppError } from '../errors.js';
import { usageError } from './args.js';
import { EXIT_BAD_INPUT, EXIT_DONE, exitCodeOf } from './exit-codes.js';
import { conversationsCommand, CONVERSATIONS_USAGE } from './commands/conversations.js';
import { cooldownsCommand, COOLDOWNS_USAGE } from './commands/cooldowns.js';
import { eventsCommand, EVENTS_USAGE } from './commands/events.js';
import { graphCommand, GRAPH_USAGE } from './commands/graph.js';
import { hookCommand } from './commands/hook.js';
import { IMPORT_CLAUDEOPS_USAGE, importClaudeOpsCommand } from './commands/import-claudeops.js';
import { INGEST_USAGE, ingestCommand } from './commands/ingest.js';
import {
  CONTEXT_USAGE,
  contextCommand,
  decayCommand,
  migrateCommand,
  REINDEX_USAGE,
  reindexCommand,
} from './commands/maintenance.js';
import { MCP_USAGE, mcpCommand } from './commands/mcp.js';
import { MIGRATE_STORE_USAGE, migrateStoreCommand } from './commands/migrate-store.js';
import { memoriesCommand, MEMORIES_USAGE } from './commands/memories.js';
import {
  EXPORT_USAGE,
  exportCommand,
  importCommand,
  importMcpMemoryCommand,
} from './commands/portability.js';
import { PRUNE_USAGE, pruneCommand } from './commands/prune.js';
import { RUN_USAGE, runCommand } from './commands/run.js';
import { SEARCH_USAGE } from './commands/search.js';
import { SERVE_USAGE, serveCommand } from './commands/serve.js';
import { servicesCommand, SERVICES_USAGE } from './commands/services.js';
import { sessionsCommand, SESSIONS_USAGE } from './commands/sessions.js';
import { stopCommand } from './commands/stop.js';
import type { CliIo } from './io.js';

export const USAGE = `watchkeeper: an ops sidecar with long-term memory for Claude CLI sessions

${SERVE_USAGE}
${RUN_USAGE}
watchkeeper stop         End the session the running serve or run is executing.

${INGEST_USAGE}

${MEMORIES_USAGE}
${SEARCH_USAGE}
${MCP_USAGE}

${SERVICES_USAGE}

${EVENTS_USAGE}
${SESSIONS_USAGE}
${COOLDOWNS_USAGE}

${CONVERSATIONS_USAGE}

${GRAPH_USAGE}

${CONTEXT_USAGE}
${REINDEX_USAGE}
watchkeeper decay        Apply staleness decay now (it also runs before every context build).
watchkeeper migrate      Create or upgrade the database.
${MIGRATE_STORE_USAGE}
${PRUNE_USAGE}
${IMPORT_CLAUDEOPS_USAGE}
${EXPORT_USAGE}
watchkeeper hook pre-tool-use   (called by the Claude CLI) Enforce cooldowns before Bash and
                                MCP tool calls that restart or redeploy.

Data lives in WATCHKEEPER_DATA_DIR (default ./data). Exit codes: 0 done, 1 failed, 2 bad usage or
bad input (a missing input file too), nothing changed.
`;

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  serve: serveCommand,
  run: runCommand,
  stop: stopCommand,
  hook: hookCommand,
  ingest: ingestCommand,
  memories: memoriesCommand,
  mcp: mcpCommand,
  events: eventsCommand,
  sessions: sessionsCommand,
  cooldowns: cooldownsCommand,
  conversations: conversationsCommand,
  graph: graphCommand,
  context: contextCommand,
  reindex: reindexCommand,
  services: servicesCommand,
  decay: decayCommand,
  migrate: migrateCommand,
  'migrate-store': migrateStoreCommand,
  prune: pruneCommand,
  'import-claudeops': importClaudeOpsCommand,
  export: exportCommand,
  import: importCommand,
  'import-mcp-memory': importMcpMemoryCommand,
};

/**
 * The usage entries of one command (`watchkeeper NAME ...` and its indented lines), so that
 * `watchkeeper NAME --help` answers for that command alone.
 */
export function usageOf(name: string): string {
  const entries: string[][] = [];
  for (const line of USAGE.split('\n')) {
    if (line.startsWith('watchkeeper ')) entries.push([line]);
    else if (/^\s/.test(line) && line.trim().length > 0) entries.at(-1)?.push(line);
  }
  const own = entries.filter((e) => e[0]!.split(/\s+/)[1] === name);
  return own.length > 0 ? `${own.map((e) => e.join('\n')).join('\n')}\n` : USAGE;
}

/** Runs one command; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      io.stdout(USAGE);
      return name === undefined ? EXIT_BAD_INPUT : EXIT_DONE;
    }
    const command = COMMANDS[name];
    if (!command) throw usageError(`unknown command "${name}"; run \`watchkeeper help\``);
    const ownArgs = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (name !== 'hook' && (ownArgs.includes('--help') || ownArgs.includes('-h'))) {
      io.stdout(usageOf(name));
      return EXIT_DONE;
    }
    return await command(rest, io);
  } catch (err) {
    if (isAppError(err)) io.stderr(`watchkeeper: ${err.message}\n`);
    else io.stderr(`watchkeeper: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return exitCodeOf(err);
  }
}
