/** The `watchkeeper` command: dispatch, and the one place CLI errors are reported. */
import { isAppError } from '../errors.js';
import { usageError } from './args.js';
import { EXIT_BAD_INPUT, EXIT_DONE, exitCodeOf } from './exit-codes.js';
import type { CliIo } from './io.js';

type Command = (argv: string[], io: CliIo) => Promise<number>;

/**
 * Each command's module is loaded when it runs: the Claude CLI starts `hook pre-tool-use` before
 * every Bash call, and loading every command's dependencies (the web server, the MCP SDK, the
 * mailer) would add most of a second to each call.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  stop: async () => (await import('./commands/stop.js')).stopCommand,
  hook: async () => (await import('./commands/hook.js')).hookCommand,
  ingest: async () => (await import('./commands/ingest.js')).ingestCommand,
  memories: async () => (await import('./commands/memories.js')).memoriesCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
  events: async () => (await import('./commands/events.js')).eventsCommand,
  sessions: async () => (await import('./commands/sessions.js')).sessionsCommand,
  cooldowns: async () => (await import('./commands/cooldowns.js')).cooldownsCommand,
  conversations: async () => (await import('./commands/conversations.js')).conversationsCommand,
  graph: async () => (await import('./commands/graph.js')).graphCommand,
  runbooks: async () => (await import('./commands/runbooks.js')).runbooksCommand,
  context: async () => (await import('./commands/maintenance.js')).contextCommand,
  reindex: async () => (await import('./commands/maintenance.js')).reindexCommand,
  services: async () => (await import('./commands/services.js')).servicesCommand,
  decay: async () => (await import('./commands/maintenance.js')).decayCommand,
  migrate: async () => (await import('./commands/maintenance.js')).migrateCommand,
  'migrate-store': async () => (await import('./commands/migrate-store.js')).migrateStoreCommand,
  prune: async () => (await import('./commands/prune.js')).pruneCommand,
  'import-claudeops': async () =>
    (await import('./commands/import-claudeops.js')).importClaudeOpsCommand,
  export: async () => (await import('./commands/portability.js')).exportCommand,
  import: async () => (await import('./commands/portability.js')).importCommand,
  'import-mcp-memory': async () =>
    (await import('./commands/portability.js')).importMcpMemoryCommand,
};

/** Runs one command; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      io.stdout((await import('./usage.js')).USAGE);
      return name === undefined ? EXIT_BAD_INPUT : EXIT_DONE;
    }
    if (name === '--version' || name === '-V' || name === 'version') {
      io.stdout(`watchkeeper ${(await import('../config/package-root.js')).packageVersion()}\n`);
      return EXIT_DONE;
    }
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!load) throw usageError(`unknown command "${name}"; run \`watchkeeper help\``);
    const ownArgs = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (name !== 'hook' && (ownArgs.includes('--help') || ownArgs.includes('-h'))) {
      io.stdout((await import('./usage.js')).usageOf(name));
      return EXIT_DONE;
    }
    const command = await load();
    return await command(rest, io);
  } catch (err) {
    if (isAppError(err)) io.stderr(`watchkeeper: ${err.message}\n`);
    else io.stderr(`watchkeeper: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return exitCodeOf(err);
  }
}
