/**
 * Query analysis for /remember (seed 004 section 5.2 step 1): temporal qualifiers ("last week",
 * "yesterday", "in March", "recently"), intent filters ("decisions about", "open questions",
 * "problems with") and entity mentions; what is left is what the ideas are matched with. Days
 * are UTC days.
 */
import { DAY_MS } from '../clock.js';
import type { Intent } from '../db/graph/graph.js';
import { NUMBER_WORDS, queryWords } from '../memory/index.js';
import { type EntityMention, entitiesIn } from './entities.js';

export interface QueryAnalysis {
  query: string;
  /** The query without its qualifiers: what ideas are matched with (may be empty). */
  search: string;
  since: number | null;
  until: number | null;
  /** The temporal words found ("last week"), if any. */
  temporal: string | null;
  /** Newer ideas rank higher (a temporal qualifier or "recently"). */
  recency: boolean;
  /** Only ideas of these intents ("decisions about X", "open questions", "problems with X"). */
  intents: Intent[];
  /** Ideas of these intents rank a little higher (an intent word inside a question). */
  preferIntents: Intent[];
  /** Questions not answered yet only. */
  openOnly: boolean;
  entities: EntityMention[];
  /** Few words and nothing named: a hypothetical answer may find more (HyDE). */
  vague: boolean;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const NUMBERS: Record<string, number> = { ...NUMBER_WORDS, few: 3, couple: 2 };
const UNIT_MS: Record<string, number> = { day: DAY_MS, week: 7 * DAY_MS, month: 30 * DAY_MS };

function startOfDay(t: number): number {
  return Math.floor(t / DAY_MS) * DAY_MS;
}

/** Monday 00:00 UTC of the week holding `t`. */
function startOfWeek(t: number): number {
  const day = new Date(startOfDay(t)).getUTCDay();
  return startOfDay(t) - ((day + 6) % 7) * DAY_MS;
}

function monthRange(year: number, month: number): [number, number] {
  return [Date.UTC(year, month, 1), Date.UTC(year, month + 1, 1)];
}

interface Temporal {
  since: number | null;
  until: number | null;
  words: string;
}

function temporalOf(q: string, now: number): Temporal | null {
  let m: RegExpExecArray | null;
  if ((m = /\btoday\b/.exec(q))) return { since: startOfDay(now), until: null, words: m[0] };
  if ((m = /\byesterday\b/.exec(q))) {
    return { since: startOfDay(now) - DAY_MS, until: startOfDay(now), words: m[0] };
  }
  if ((m = /\bthis week\b/.exec(q))) return { since: startOfWeek(now), until: null, words: m[0] };
  // "last week" as people say it: the past seven days or the calendar week before this one.
  if ((m = /\b(?:last|past|previous) week\b/.exec(q))) {
    return { since: startOfWeek(now) - 7 * DAY_MS, until: null, words: m[0] };
  }
  if ((m = /\bthis month\b/.exec(q))) {
    const d = new Date(now);
    return { since: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), until: null, words: m[0] };
  }
  if ((m = /\b(?:last|past|previous) month\b/.exec(q))) {
    const d = new Date(now);
    return {
      since: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1),
      until: null,
      words: m[0],
    };
  }
  m = /\b(?:in the )?(?:last|past) (\d+|[a-z]+) (day|week|month)s?\b/.exec(q);
  if (m) {
    const n = /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBERS[m[1]!];
    if (n !== undefined) return { since: now - n * UNIT_MS[m[2]!]!, until: null, words: m[0] };
  }
  m = /\b(\d+|[a-z]+) (day|week|month)s? ago\b/.exec(q);
  if (m) {
    const n = /^\d+$/.test(m[1]!) ? Number(m[1]) : NUMBERS[m[1]!];
    if (n !== undefined) {
      const at = now - n * UNIT_MS[m[2]!]!;
      const unit = UNIT_MS[m[2]!]!;
      return {
        since: startOfDay(at - unit / 2),
        until: startOfDay(at + unit / 2) + DAY_MS,
        words: m[0],
      };
    }
  }
  const day = explicitDay(q, now);
  if (day) return day;
  m = new RegExp(`\\b(?:in|during|back in|since) (${MONTHS.join('|')})(?: (\\d{4}))?\\b`).exec(q);
  if (m) {
    const month = MONTHS.indexOf(m[1]!);
    const current = new Date(now);
    let year = m[2] ? Number(m[2]) : current.getUTCFullYear();
    // "in March" is the last March that has begun.
    if (!m[2] && Date.UTC(year, month, 1) > now) year -= 1;
    const [since, until] = monthRange(year, month);
    return { since, until: m[0].startsWith('since') ? null : until, words: m[0] };
  }
  m = /\b(?:in|during) (\d{4})\b/.exec(q);
  if (m) {
    const year = Number(m[1]);
    return { since: Date.UTC(year, 0, 1), until: Date.UTC(year + 1, 0, 1), words: m[0] };
  }
  return null;
}

const MONTH_NAME = `(${MONTHS.join('|')})`;
/** "October 13, 2023", "13 October 2023", "on the 13th of October" (the year may be left out). */
const DAY_PATTERNS: { re: RegExp; day: number; month: number; year: number }[] = [
  {
    re: new RegExp(`\\b(?:on )?${MONTH_NAME} (\\d{1,2})(?:st|nd|rd|th)?(?:,? (\\d{4}))?\\b`),
    month: 1,
    day: 2,
    year: 3,
  },
  {
    re: new RegExp(
      `\\b(?:on )?(?:the )?(\\d{1,2})(?:st|nd|rd|th)?(?: of)? ${MONTH_NAME}(?:,? (\\d{4}))?\\b`,
    ),
    day: 1,
    month: 2,
    year: 3,
  },
];

/** A date named in full ("on 1 February, 2023"): that UTC day. */
function explicitDay(q: string, now: number): Temporal | null {
  for (const p of DAY_PATTERNS) {
    const m = p.re.exec(q);
    if (!m) continue;
    const day = Number(m[p.day]);
    const month = MONTHS.indexOf(m[p.month]!);
    if (day < 1 || day > 31) continue;
    let year = m[p.year] ? Number(m[p.year]) : new Date(now).getUTCFullYear();
    // "on March 3" is the last March 3rd that has come.
    if (!m[p.year] && Date.UTC(year, month, day) > now) year -= 1;
    const since = Date.UTC(year, month, day);
    return { since, until: since + DAY_MS, words: m[0] };
  }
  return null;
}

const RECENCY = /\b(recent(?:ly)?|lately|latest|most recent|newest|last time|these days)\b/;

/** A question asked in words, rather than a request for a list. */
const QUESTION =
  /\?\s*$|^\s*(?:what|which|when|where|who|why|how|did|do|does|is|are|was|were|have|has|can|could|should)\b/i;

/** What may come before an intent word that filters: nothing, or a request for a list. */
const LEAD =
  /^\s*(?:(?:show|list|find|give|get|tell)(?: me)?\s+)?(?:(?:all|any|every|the|our|my|what|which|were|are|there|of)\s+)*(?:the\s+)?$/;

const INTENT_FILTERS: { pattern: RegExp; intents: Intent[]; open?: boolean }[] = [
  {
    pattern:
      /\b(?:open|unanswered|outstanding|pending) questions?\b|\bquestions? (?:still )?open\b/,
    intents: ['question'],
    open: true,
  },
  {
    pattern:
      /\b(?:decisions?|decided|we chose|choices?)\b(?: (?:about|on|for|regarding|around|over))?/,
    intents: ['decision'],
  },
  { pattern: /\bquestions?\b(?: (?:about|on|for|regarding))?/, intents: ['question'] },
  {
    pattern: /\b(?:problems?|issues?|bugs?|errors?|troubles?)\b(?: (?:with|in|about|on|of))?/,
    intents: ['problem'],
  },
  {
    pattern:
      /\b(?:todos?|to-dos?|to do list|action items?|next steps?|left to do|still to do)\b(?: (?:for|about|on))?/,
    intents: ['todo'],
  },
  {
    pattern:
      /\b(?:solutions?|fixes|workarounds?|how (?:did )?we (?:fixed|fix|solved|solve))\b(?: (?:for|to|about))?/,
    intents: ['solution'],
  },
  {
    pattern:
      /\b(?:conclusions?|insights?|takeaways?|lessons?(?: learned)?)\b(?: (?:about|on|from))?/,
    intents: ['conclusion'],
  },
];

export function analyseQuery(query: string, now: number): QueryAnalysis {
  let rest = ` ${query.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  const temporal = temporalOf(rest, now);
  if (temporal) rest = rest.replace(temporal.words, ' ');
  const recencyWord = RECENCY.exec(rest);
  if (recencyWord) rest = rest.replace(recencyWord[0], ' ');
  const asked = QUESTION.test(query);
  const intents = new Set<Intent>();
  const prefer = new Set<Intent>();
  let openOnly = false;
  for (const f of INTENT_FILTERS) {
    const m = f.pattern.exec(rest);
    if (!m) continue;
    // A request that starts with the intent ("decisions about X", "open questions") filters;
    // an intent word inside a question ("what issues did we hit with X?") only prefers.
    const before = rest.slice(0, m.index);
    if (LEAD.test(before) && (f.open || !asked)) {
      for (const i of f.intents) intents.add(i);
      if (f.open) openOnly = true;
      rest = rest.replace(m[0], ' ');
      break;
    }
    if (!(f.intents[0] === 'question' && /\?\s*$/.test(query))) {
      for (const i of f.intents) prefer.add(i);
    }
  }
  // What is left, without the words that only framed the request.
  // Question words and pronouns say what kind of answer is wanted, never what it is about; a
  // possessive's "s" would match every "'s".
  const search = rest
    .replace(/(\w)['’]s\b/g, '$1')
    .replace(
      /\b(?:what|did|do|we|i|you|about|remember|recall|tell me|say|said|discuss(?:ed)?|talk(?:ed)?|anything|regarding|the|all|any|were|was|have|has|made|make)\b/g,
      ' ',
    )
    .replace(
      /\b(?:how|why|who|whom|whose|where|which|kind of|type of|sort of|her|his|him|hers|me|my|our|us|your|its)\b/g,
      ' ',
    )
    .replace(/\s+/g, ' ')
    .trim();
  const entities = entitiesIn(query);
  const words = queryWords(search);
  return {
    query,
    search: words.length > 0 ? search : '',
    since: temporal?.since ?? null,
    until: temporal?.until ?? null,
    temporal: temporal?.words.trim() ?? null,
    recency: temporal !== null || recencyWord !== null,
    intents: [...intents],
    preferIntents: intents.size > 0 ? [] : [...prefer],
    openOnly,
    entities,
    vague: words.length > 0 && words.length <= 2 && entities.length === 0,
  };
}
