/**
 * The help text of every command, in one place: `watchkeeper help` prints it all, `NAME --help`
 * one command's entries, and a command quotes its own entry in a usage error. Kept apart from the
 * commands so that running one command loads that command's code only.
 */
import { CATEGORIES } from '../memory/index.js';
import { FORMAT } from '../portability/index.js';
import { DEFAULT_BUDGET } from '../graph/index.js';

export const IMPORT_CLAUDEOPS_USAGE = `watchkeeper import-claudeops DB [--dry-run] [--json]
  Import a Claude Ops (Go sidecar) database ($CLAUDEOPS_STATE_DIR/claudeops.db): its sessions,
  events, memories (confidence, state and dates kept) and cooldown actions. Each row is imported
  once: running it again adds only what is new. --dry-run: report what it would import, write
  nothing.`;

export const SESSIONS_USAGE =
  'watchkeeper sessions list [--status S] [--trigger T] [--tier N] [--since 24h] [--instance NAME]\n' +
  '                          [--limit N] [--json]';

export const EXPORT_USAGE = `watchkeeper export [--all] [--service S] > memories.jsonl
  Active memories (with --all: inactive and archived ones too), each with its history, pins,
  importance and provenance, and the services' descriptions, as JSON Lines (${FORMAT});
  progress on stderr.
watchkeeper import FILE [--dry-run] [--json]
  An export back in, on this or another instance, through the memory service: one that says
  what an active memory says reinforces it; of two that say otherwise the newer stays active.
  A memory deleted, reworded, merged or superseded here since is skipped, never brought back.
  Each record is imported once, so importing the same file again changes nothing. A bad line
  (a field the API would refuse, a repeated id, a cycle of links, over 16 MiB) is refused with
  its number. --dry-run: print what would be created, reinforced, skipped or refused and why.
  --json: the report as POST /api/v1/memories/import answers it, nothing else.
watchkeeper import-mcp-memory PATH [--dry-run] [--json]
  The MCP reference memory server's memory.jsonl (or legacy memory.json): entities into the
  memory graph, observations into memories, relations between entities. Again later: only
  what is new.`;

export const MCP_USAGE = `watchkeeper mcp
  The memory tools (memory_add, memory_query, memory_verify, memory_reinforce) as an MCP server
  on stdio. Sessions watchkeeper runs get it automatically; add it to your own Claude Code, from
  any folder, with claude mcp add watchkeeper -- node /path/to/watchkeeper/bin/watchkeeper.js mcp
  (or \`watchkeeper mcp\` after npm link). Unset, WATCHKEEPER_DATA_DIR is the package's ./data.`;

export const RUN_USAGE = `watchkeeper run [--tier 1|2|3] [--prompt TEXT]
  Run one chain now in the foreground (Ctrl-C or \`watchkeeper stop\` ends it). Exit 0 when it completed.`;

export const COOLDOWNS_USAGE = `watchkeeper cooldowns list [--json]
watchkeeper cooldowns reset SERVICE --reason TEXT [--action restart|redeployment] [--fleet]
watchkeeper cooldowns allow SERVICE --count N --until 2h|TIME --reason TEXT [--action restart|redeployment] [--fleet]
  Per service the restarts and redeployments counted against the limits, and the overrides:
  reset (what was counted stops counting; nothing is deleted) or allow N more until a time.
  An override applies to this instance unless --fleet makes it fleet-wide (on a service in
  WATCHKEEPER_FLEET_COOLDOWN_SERVICES, whose limits the fleet shares, it always is).`;

export const SEARCH_USAGE = `watchkeeper memories search QUERY [--limit N] [--service S] [--category C] [--all|--inactive] [--explain] [--json]
  Memories by meaning and by words, ranked by relevance x confidence x recency (active ones
  unless --all or --inactive). --explain: also the candidates that were cut, and why (no
  evidence of their own, under the score threshold, or outranked past the limit).`;

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

export const MIGRATE_STORE_USAGE = `watchkeeper migrate-store --from FILE --to URL [--instance NAME] [--json]
  Copy a SQLite store (every table; raw session logs stay where they are) into the fleet's
  PostgreSQL database URL (postgres://...), as the instance NAME (default WATCHKEEPER_INSTANCE,
  else local). The store is migrated to this version first. Ids are moved past the rows already
  there; an interrupted copy resumes when run again; every table is verified by row count and
  checksum at the end. Stop the watchkeeper that uses the store first.`;

export const CONVERSATIONS_USAGE = `watchkeeper conversations list [--limit N] [--json]
watchkeeper conversations show ID [--messages N] [--cursor C] [--json]
watchkeeper conversations summaries ID [--json]
  Conversations posted to the API: their messages, sliding-window summaries (the version chain
  with window ranges and generation times) and the memories extracted from them. show prints a
  page of the newest messages (at most 4 MiB of them); --cursor reads the page before.`;

export const INGEST_USAGE = `watchkeeper ingest [--force] [FILE|-] [--tier N] [--json]
  Import a saved \`claude -p --output-format stream-json --verbose\` transcript (or stdin) as a
  session: its markers become events, memories and cooldown actions, exactly as in a live run.
  Input that is not a transcript (empty, binary, a folder) is refused, and so is a transcript
  whose CLI session is already recorded (it would reinforce its memories twice) unless --force.`;

export const SERVE_USAGE = `watchkeeper serve [--demo]
  Run sessions on WATCHKEEPER_SCHEDULE until stopped (npm start). --demo: a simulated model,
  data in ./demo-data, a run every minute (npm run demo).`;

export const PRUNE_USAGE = `watchkeeper prune [--older-than AGE] [--dry-run] [--json]
  Delete sessions with their raw logs, events, the history of memories no longer active, and
  notifications delivered or given up on, older than AGE (such as 90d; at least 1d; default
  WATCHKEEPER_RETENTION). Memories themselves are never deleted. In a fleet, sessions and events
  are this instance's. --dry-run: report what would go, delete nothing.`;

export const EVENTS_USAGE = `watchkeeper events list [--level info|warning|critical] [--service S]
                        [--session ID] [--source agent|system] [--search WORDS]
                        [--since 1h|24h|7d|30d] [--instance NAME] [--limit N] [--json]`;

export const SERVICES_USAGE = `watchkeeper services list [--json]
watchkeeper services show S [--json]
watchkeeper services describe S "what it is"   (empty text: back to the catalog's description)
  Every service seen in events, memories or cooldowns, with what it is (operator, agent marker
  [SERVICE:name], or the built-in catalog), its memories and its last event.`;

export const RUNBOOKS_USAGE = `watchkeeper runbooks list [--tier 1|2|3] [--json]
  The repositories of WATCHKEEPER_REPOS_DIR (their CLAUDE-OPS.md manifests), the checks,
  playbooks and skills (built-in, or a repository's .claude-ops/ folder, which replaces a
  built-in one of the same name) and the MCP servers sessions are given, each with where it
  came from, and what could not be read. --tier: the playbooks and skills that tier may follow.
watchkeeper runbooks show NAME
  A check, playbook or skill (NAME or checks/NAME) in full, as the agent reads it, with its path.
watchkeeper runbooks lint [PATH]
  What is wrong in a CLAUDE-OPS.md, a document, an mcp.json, a .claude-ops folder, a repository
  or a repos folder (default WATCHKEEPER_REPOS_DIR), as file:line: message. Exit 2 when
  something is, 0 when nothing is.`;

export const CONTEXT_USAGE = `watchkeeper context [--query TEXT] [--tier 1|2|3] [--budget N] [--json]
  Print the exact memory block a session would get (after decay): with --query, the block of a
  session triggered by that text (an alert, a prompt); --json adds why each memory is in it.`;

export const REINDEX_USAGE = `watchkeeper reindex [--pending]
  Re-embed every memory with the current embedding model (after a model change), with progress;
  --pending embeds only the memories that have no vector from it yet.`;

export const MEMORIES_USAGE = `watchkeeper memories list [--service S] [--category C] [--instance NAME|fleet] [--all|--inactive] [--limit N] [--json]
watchkeeper memories add --category C [--service S] [--confidence X] [--pin] [--json] TEXT
watchkeeper memories edit ID [--text TEXT] [--confidence X] [--json]
watchkeeper memories delete ID...
watchkeeper memories pin|unpin ID
watchkeeper memories deactivate ID...
watchkeeper memories reactivate ID [--confidence X]
watchkeeper memories archive ID [--reason TEXT]
watchkeeper memories restore ID
watchkeeper memories share|unshare ID [--json]
  share: every instance of the fleet sees it; unshare: it belongs to this instance again.
watchkeeper memories history ID [--json]
watchkeeper memories merge ID ID... [--text TEXT] [--confidence X] [--json]
  Merge into the first ID: it keeps the best confidence (or X), the highest importance, the
  others' provenance in its history; the others are archived, linked to it, their history kept.
  Categories: ${CATEGORIES.join(', ')}. Service "general" (or none) means a general memory.`;

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

${RUNBOOKS_USAGE}

${CONTEXT_USAGE}
${REINDEX_USAGE}
watchkeeper decay        Apply staleness decay now (it also runs before every context build).
watchkeeper migrate      Create or upgrade the database.
${MIGRATE_STORE_USAGE}
${PRUNE_USAGE}
${IMPORT_CLAUDEOPS_USAGE}
${EXPORT_USAGE}
watchkeeper version      Print the version (also --version, -V).
watchkeeper hook pre-tool-use   (called by the Claude CLI) Enforce cooldowns before Bash and
                                MCP tool calls that restart or redeploy.

Data lives in WATCHKEEPER_DATA_DIR (default ./data). Exit codes: 0 done, 1 failed, 2 bad usage or
bad input (a missing input file too), nothing changed.
`;

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
