/**
 * Deterministic answers to the memory graph's gateway jobs (`[watchkeeper:graph-*]`), for the
 * simulated model: what the graph tests run "with the simulated gateway". The answers are
 * recognisably the model's (span names start "Sim:", summaries "Simulated summary"), so a test
 * can tell which path produced them. Everything else goes to the conversation jobs' script.
 */
import { gatewayScript, parseJobMessages } from '../../src/sim/gateway-jobs.js';
import type { SimBlock, SimRequest, SimScript } from '../../src/sim/messages-api.js';

function userText(r: SimRequest): string {
  const messages = Array.isArray(r.body.messages)
    ? (r.body.messages as { role?: string; content?: unknown }[])
    : [];
  const content = messages.find((m) => m.role === 'user')?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? (content as { type?: string; text?: string }[])
        .filter((b) => b.type === 'text')
        .map((b) => b.text ?? '')
        .join('\n')
    : r.prompt;
}

const json = (value: unknown): SimBlock[] => [{ type: 'text', text: JSON.stringify(value) }];

/** `[#N label] text` lines of a graph job (the label is a role, or an idea's intent). */
function lines(text: string): { n: number; text: string }[] {
  return [...text.matchAll(/^\[#(\d+) [a-z]+\] (.*)$/gm)].map((m) => ({
    n: Number(m[1]),
    text: m[2]!,
  }));
}

function intentOf(sentence: string): string {
  if (sentence.trim().endsWith('?')) return 'question';
  if (/\b(fixed|solved|resolved)\b/i.test(sentence)) return 'solution';
  if (/\b(decided|changed|instead|switch)\b/i.test(sentence)) return 'decision';
  if (/\b(problem|failing|fails|blocked)\b/i.test(sentence)) return 'problem';
  if (/\b(need to|todo)\b/i.test(sentence)) return 'todo';
  return 'context';
}

export function graphJobAnswer(r: SimRequest): SimBlock[] | null {
  const kind = /\[watchkeeper:(graph-[a-z]+)\]/.exec(r.system)?.[1];
  if (!kind) return null;
  const prompt = userText(r);
  switch (kind) {
    case 'graph-shift': {
      const next = prompt.slice(prompt.indexOf('Next turn:'));
      const words = lines(next)[0]?.text.split(/\s+/).slice(0, 3).join(' ') ?? '';
      return json({ shift: true, name: `Sim: ${words}` });
    }
    case 'graph-name':
      return [
        {
          type: 'text',
          text: `Sim: ${lines(prompt)[0]?.text.split(/\s+/).slice(0, 3).join(' ') ?? 'topic'}`,
        },
      ];
    case 'graph-summary':
      return [{ type: 'text', text: `Simulated summary: ${lines(prompt).length} ideas.` }];
    case 'graph-extract': {
      const ideas = parseJobMessages(prompt).flatMap((m) =>
        m.text
          .split(/(?<=[.!?])\s+/)
          .filter((s) => s.split(/\s+/).length >= 4)
          .map((s) => ({
            line: m.seq,
            content: s,
            intent: intentOf(s),
            confidence: /\bmaybe\b/i.test(s) ? 0.3 : 0.7,
            entities: /postgres/i.test(s) ? [{ name: 'Postgres', type: 'technology' }] : [],
          })),
      );
      return json({ ideas });
    }
    case 'graph-hyde':
      return [{ type: 'text', text: `We decided about ${prompt}.` }];
    default:
      return [{ type: 'text', text: `(no simulated answer for ${kind} jobs)` }];
  }
}

/** The graph's jobs first, then the conversation jobs, then `script` (or a short text). */
export function withGraphJobs(script: SimScript = gatewayScript): SimScript {
  return (r) => graphJobAnswer(r) ?? script(r);
}
