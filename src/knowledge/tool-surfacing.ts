/**
 * Seed 000's context-aware surfacing inside a session: after a tool call, the memories relevant
 * to it that the session has not yet seen, at most 500 tokens, for the PostToolUse hook's
 * `additionalContext`. The tool call and the head of its output are used only as a search query:
 * nothing from tool output is ever stored as memory (an attacker may control it).
 */
import type { Clock } from '../clock.js';
import type { SurfacingStore } from '../db/index.js';
import { estimateTokens, formatConfidence } from '../memory/index.js';
import type { Search } from './search.js';

export const HOOK_BUDGET_TOKENS = 500;
// What a tool call is about is in its first lines: a longer query costs the hook's answer more
// to embed (the local model's time grows with the text) and to rank, and finds no better.
const INPUT_HEAD = 300;
const OUTPUT_HEAD = 200;

export interface ToolCall {
  toolName: string;
  toolInput: unknown;
  toolResponse: unknown;
}

export interface Surfacing {
  text: string;
  memoryIds: number[];
}

function head(value: unknown, max: number): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? text.slice(0, max) : text;
}

/** The search query for a tool call: what was run, and the beginning of what came back. */
export function toolQuery(call: ToolCall): string {
  const input = call.toolInput as { command?: unknown } | null;
  const what =
    input && typeof input.command === 'string' ? input.command : head(call.toolInput, INPUT_HEAD);
  const output = call.toolResponse as { stdout?: unknown; stderr?: unknown } | null;
  const out =
    output && typeof output === 'object' && ('stdout' in output || 'stderr' in output)
      ? `${head(output.stdout, OUTPUT_HEAD)}\n${head(output.stderr, OUTPUT_HEAD / 2)}`
      : head(call.toolResponse, OUTPUT_HEAD);
  return `${what.slice(0, INPUT_HEAD)}\n${out}`.trim();
}

export function createToolSurfacing(deps: {
  search: Search;
  surfacing: SurfacingStore;
  clock: Clock;
  /** The scopes a session sees: 'ops' and those the operator shared with ops. */
  opsScopes: () => Promise<string[]>;
}) {
  const { search, surfacing, clock } = deps;
  return {
    /** What to add after this tool call in this session (empty text: nothing new and relevant). */
    async surface(sessionId: number | null, call: ToolCall): Promise<Surfacing> {
      const query = toolQuery(call);
      if (query === '') return { text: '', memoryIds: [] };
      const exclude =
        sessionId === null ? new Set<number>() : await surfacing.surfacedIn(sessionId);
      const answer = await search.search(query, {
        limit: 8,
        exclude,
        scopes: await deps.opsScopes(),
        minCosine: search.thresholds().related,
      });
      const lines: string[] = [];
      const picked: { memoryId: number; score: number; detail: unknown }[] = [];
      const heading = 'Memories from earlier runs relevant to this tool call (watchkeeper):';
      let tokens = estimateTokens(`${heading}\n`);
      for (const r of answer.results) {
        const m = r.memory;
        const line = `- [${m.category}:${m.service ?? 'general'}] ${m.observation} (confidence: ${formatConfidence(m.confidence)})`;
        const cost = estimateTokens(`${line}\n`);
        if (tokens + cost > HOOK_BUDGET_TOKENS) break;
        tokens += cost;
        lines.push(line);
        picked.push({ memoryId: m.id, score: r.why.score, detail: { why: r.why } });
      }
      if (lines.length === 0) return { text: '', memoryIds: [] };
      await surfacing.record(sessionId, picked, 'hook', clock.now());
      return { text: `${heading}\n${lines.join('\n')}`, memoryIds: picked.map((p) => p.memoryId) };
    },
  };
}

export type ToolSurfacing = ReturnType<typeof createToolSurfacing>;
