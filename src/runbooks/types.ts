/** What discovery finds: repositories, their manifests, runbook documents and MCP servers. */

export type Tier = 1 | 2 | 3;

export const DOC_KINDS = ['checks', 'playbooks', 'skills'] as const;
export type DocKind = (typeof DOC_KINDS)[number];

/** Something wrong in a file, where it is: `file:line: message` (line 0: the file as a whole). */
export interface Issue {
  file: string;
  line: number;
  message: string;
}

/**
 * A rule of a manifest the guard enforces (see rules.ts): the lowest tier that may run a command
 * family (each command as its words, `helm upgrade`), or a read-only repository.
 */
export type EnforcedRule =
  | { kind: 'tier'; text: string; line: number; commands: string[][]; tier: Tier }
  | { kind: 'read-only'; text: string; line: number };

/** A repository's CLAUDE-OPS.md, as its sections say. */
export interface Manifest {
  path: string;
  title: string | null;
  /** The first paragraph under the title: what the repository is. */
  summary: string | null;
  kind: string | null;
  capabilities: { name: string; description: string }[];
  rules: string[];
  /** Playbook runs need at least this tier, when a rule says so ("Playbook runs require Tier 3"). */
  playbookMinTier: Tier | null;
  /** The line of the rule that sets playbookMinTier (the guard cites it). */
  playbookTierLine: number | null;
  /** The rules the PreToolUse guard enforces (a command's minimum tier, read-only). */
  enforced: EnforcedRule[];
  /** Every other section, heading and text as written. */
  sections: { heading: string; text: string }[];
}

/** One check, playbook or skill: an index entry; the agent reads the full text at `path`. */
export interface RunbookDoc {
  kind: DocKind;
  /** The file name without `.md`: the same name from a repository replaces a built-in one. */
  name: string;
  title: string;
  /** When it applies: its "When ..." section's first paragraph, else the first paragraph. */
  applies: string;
  /** The lowest tier that may follow it (a check: 1). */
  minTier: Tier;
  /** Where that tier is stated (`file:line`), or null for the default. */
  minTierSource?: { file: string; line: number } | null;
  /** `built-in`, or the path of the repository it came from. */
  source: string;
  path: string;
}

export interface McpServer {
  name: string;
  /** The server's definition, as the repository's mcp.json gives it. */
  config: Record<string, unknown>;
  /** The path of the repository it came from. */
  source: string;
  path: string;
}

export interface Repository {
  name: string;
  path: string;
  manifest: Manifest | null;
  /** Without a manifest: the README's first paragraph, if there is one. */
  readme: string | null;
  /** Without a manifest: the names at the top of the repository (folders end in `/`). */
  listing: string[];
}

export interface Runbooks {
  reposDir: string | null;
  repositories: Repository[];
  checks: RunbookDoc[];
  playbooks: RunbookDoc[];
  skills: RunbookDoc[];
  mcpServers: McpServer[];
  warnings: Issue[];
}
