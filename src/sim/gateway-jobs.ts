/**
 * How the simulated model answers watchkeeper's gateway jobs, deterministically, so the demo and
 * the tests run conversation memory offline. A job is recognised by the `[watchkeeper:KIND]` tag
 * its instructions start with; its messages are read from the `[#SEQ role] text` lines.
 *
 * - gate: yes when a message holds a cue (decided, prefer, always, remember, deadline...), with
 *   the cue and the message as the reason; no otherwise ("small talk").
 * - extract: one memory per sentence with a cue, its importance and type from the cue.
 * - summary: one line per message (`- [#N] role: gist`), the previous summary's lines from the
 *   window's first message on kept, earlier ones dropped: the sliding window made visible.
 * - graph-*: the memory graph's jobs (graph-jobs.ts).
 * - session-summary: a chain's summary from its sessions (session-summary-job.ts).
 * - memory-judge: "updates" the closest memory when the new observation says "no longer", "now",
 *   "instead" or "changed"; "same" when most of its words (three letters or more) are the closest
 *   memory's; "different" otherwise.
 *
 * JSON is answered the way each client asks for it: the Claude CLI's `--json-schema` offers a
 * `StructuredOutput` tool (called with the object); the Messages API's structured outputs
 * (`output_config.format`) get the object as text.
 */
import { answerGraphJob } from './graph-jobs.js';
import { answerSessionSummary } from './session-summary-job.js';
import type { SimBlock, SimRequest, SimScript } from './messages-api.js';

interface Line {
  seq: number;
  role: string;
  text: string;
}

const CUES: { re: RegExp; importance: number; type: string }[] = [
  {
    re: /\b(decided|decision|we will|we'll|from now on|agreed)\b/i,
    importance: 4,
    type: 'decision',
  },
  { re: /\b(always|never|must|important|critical)\b/i, importance: 4, type: 'fact' },
  { re: /\b(deadline|due|project|milestone|launch)\b/i, importance: 3, type: 'project' },
  { re: /\b(prefer|prefers|favou?rite|like to|rather)\b/i, importance: 3, type: 'preference' },
  {
    re: /\b(remember|note that|my name is|i am|i'm a|learned|turns out)\b/i,
    importance: 3,
    type: 'insight',
  },
];
const STOP = new Set([
  'about',
  'their',
  'there',
  'which',
  'would',
  'should',
  'could',
  'these',
  'those',
  'where',
  'after',
  'before',
  'other',
  'decided',
  'always',
  'never',
  'prefer',
  'remember',
]);

/** `[#SEQ role] text` lines (a message may run over several lines). */
export function parseJobMessages(text: string): Line[] {
  const out: Line[] = [];
  const re = /^\[#(\d+) (user|assistant|system|tool)\] /gm;
  const starts = [...text.matchAll(re)];
  starts.forEach((m, i) => {
    const from = m.index + m[0].length;
    const to = i + 1 < starts.length ? starts[i + 1]!.index : text.length;
    out.push({ seq: Number(m[1]), role: m[2]!, text: text.slice(from, to).trim() });
  });
  return out;
}

function cueOf(text: string) {
  return CUES.find((c) => c.re.test(text)) ?? null;
}

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function tags(sentence: string): string[] {
  const words = sentence.toLowerCase().match(/[a-z][a-z0-9-]{4,}/g) ?? [];
  return [...new Set(words.filter((w) => !STOP.has(w)))].slice(0, 3);
}

function gate(lines: Line[]) {
  for (const l of lines) {
    const cue = cueOf(l.text);
    if (cue) {
      const word = cue.re.exec(l.text)![0];
      return { worth_remembering: true, reason: `message #${l.seq} says "${word.toLowerCase()}"` };
    }
  }
  return {
    worth_remembering: false,
    reason: 'small talk: no decision, preference or fact worth keeping',
  };
}

function extract(lines: Line[]) {
  const memories: { content: string; importance: number; type: string; topic_tags: string[] }[] =
    [];
  for (const l of lines) {
    for (const s of sentences(l.text)) {
      const cue = cueOf(s);
      if (!cue || memories.length >= 20) continue;
      memories.push({
        content: s.length > 300 ? `${s.slice(0, 299)}…` : s,
        importance: cue.importance,
        type: cue.type,
        topic_tags: tags(s),
      });
    }
  }
  return { memories };
}

function gist(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}

function summarise(prompt: string): string {
  const window = /Window: messages (\d+) to (\d+)/.exec(prompt);
  const start = window ? Number(window[1]) : 0;
  const previous = /Previous summary \(covers[^)]*\):\n([\s\S]*?)\n\nNew messages:/.exec(prompt);
  const kept = (previous?.[1] ?? '').split('\n').filter((line) => {
    const m = /^- \[#(\d+)\]/.exec(line);
    return m !== null && Number(m[1]) >= start;
  });
  const fresh = parseJobMessages(prompt.slice(prompt.indexOf('New messages:')))
    .filter((l) => l.seq >= start)
    .map((l) => `- [#${l.seq}] ${l.role}: ${gist(l.text)}`);
  return [...kept, ...fresh].join('\n');
}

/** A value that fits a JSON schema, for requests that are not watchkeeper jobs. */
export function exampleFor(schema: Record<string, unknown>): unknown {
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, exampleFor(v)]));
    }
    case 'array':
      return [];
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    default:
      return Array.isArray(schema.enum) ? schema.enum[0] : 'simulated';
  }
}

/** A memory judge's verdict on `Memories kept:` (`#id: text` lines) and `New observation:`. */
function judge(prompt: string): { verdict: string; memory: number | null; reason: string } {
  const kept = [...prompt.matchAll(/^#(\d+): (.*)$/gm)].map((m) => ({
    id: Number(m[1]),
    text: m[2]!,
  }));
  const fresh = /New observation:\n([\s\S]*)$/.exec(prompt)?.[1]?.trim() ?? '';
  const first = kept[0];
  if (!first) return { verdict: 'different', memory: null, reason: 'nothing to compare with' };
  if (/\b(no longer|now|instead|changed)\b/i.test(fresh)) {
    return { verdict: 'updates', memory: first.id, reason: 'it says what changed' };
  }
  const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
  const mine = words(fresh);
  const theirs = words(first.text);
  const shared = [...mine].filter((w) => theirs.has(w)).length;
  return shared * 10 >= mine.size * 6
    ? { verdict: 'same', memory: first.id, reason: 'the same words for the same fact' }
    : { verdict: 'different', memory: null, reason: 'another fact about the service' };
}

/** The job kind a request is for, from its instructions; null when it is not a job. */
export function jobKindOf(r: SimRequest): string | null {
  return /\[watchkeeper:([a-z_-]+)\]/.exec(r.system)?.[1] ?? null;
}

function lastUserText(r: SimRequest): string {
  const messages = Array.isArray(r.body.messages)
    ? (r.body.messages as { role?: string; content?: unknown }[])
    : [];
  // The CLI's first user message carries the prompt after its system reminders.
  const first = messages.find((m) => m.role === 'user');
  const content = first?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return r.prompt;
  return (content as { type?: string; text?: unknown }[])
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .filter((t) => !t.startsWith('<system-reminder>'))
    .join('\n');
}

/** The object answered as the client asked for JSON: a tool call for the CLI, text for the API. */
function jsonBlocks(r: SimRequest, value: unknown): SimBlock[] {
  const tools = Array.isArray(r.body.tools) ? (r.body.tools as { name?: string }[]) : [];
  if (tools.some((t) => t.name === 'StructuredOutput')) {
    return [
      { type: 'tool_use', name: 'StructuredOutput', input: value as Record<string, unknown> },
    ];
  }
  return [{ type: 'text', text: JSON.stringify(value) }];
}

function wantsJson(r: SimRequest): Record<string, unknown> | null {
  const format = (
    r.body.output_config as { format?: { type?: string; schema?: unknown } } | undefined
  )?.format;
  if (
    format?.type === 'json_schema' &&
    typeof format.schema === 'object' &&
    format.schema !== null
  ) {
    return format.schema as Record<string, unknown>;
  }
  const tools = Array.isArray(r.body.tools)
    ? (r.body.tools as { name?: string; input_schema?: unknown }[])
    : [];
  const so = tools.find((t) => t.name === 'StructuredOutput');
  return so ? ((so.input_schema ?? {}) as Record<string, unknown>) : null;
}

/** The answer to a gateway job, or null when the request is not one. */
export function answerGatewayJob(r: SimRequest): SimBlock[] | null {
  const kind = jobKindOf(r);
  const schema = wantsJson(r);
  // After a StructuredOutput call the CLI sends the tool's result back: the job is done.
  if (r.toolResults.length > 0 && kind !== null) {
    return [{ type: 'text', text: 'Done.' }];
  }
  const prompt = lastUserText(r);
  switch (kind) {
    case 'gate':
      return jsonBlocks(r, gate(parseJobMessages(prompt)));
    case 'extract':
      return jsonBlocks(r, extract(parseJobMessages(prompt)));
    case 'summary':
      return [{ type: 'text', text: summarise(prompt) || '(nothing to summarise yet)' }];
    case 'session-summary':
      return [{ type: 'text', text: answerSessionSummary(prompt) }];
    case 'memory-judge':
      return jsonBlocks(r, judge(prompt));
    default: {
      const graph = kind !== null ? answerGraphJob(kind, prompt) : null;
      if (graph)
        return 'json' in graph ? jsonBlocks(r, graph.json) : [{ type: 'text', text: graph.text }];
      if (kind !== null) return [{ type: 'text', text: `(no simulated answer for ${kind} jobs)` }];
      // Not a job, but JSON asked for (the CLI's session title): a value of the right shape.
      return schema ? jsonBlocks(r, exampleFor(schema)) : null;
    }
  }
}

/** `script` with gateway jobs answered first: what the demo and the tests run. */
export function withGatewayJobs(script: SimScript): SimScript {
  return (r) => answerGatewayJob(r) ?? script(r);
}

/** Only gateway jobs (anything else gets a short text). */
export const gatewayScript: SimScript = withGatewayJobs(() => [
  { type: 'text', text: '(the simulated model answers watchkeeper jobs only)' },
]);
