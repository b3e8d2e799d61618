/**
 * The rule-based idea extractor (seed 004 section 4.2 step 4 without a model): a turn's sentences
 * classified by intent from their wording, a confidence from tentative or firm wording, the
 * entities they name, and the cue words relation detection reads ("changed from X to Y",
 * "additionally"). Sentences that say nothing typed are kept together as one context idea of the
 * turn, so that background stays findable without an idea per sentence.
 */
import type { Intent } from '../db/graph/graph.js';
import { sayingWordCount } from '../memory/index.js';
import { type EntityMention, entitiesIn } from './entities.js';
import { sentencesOf } from './sentences.js';
import { isTransition } from './topics.js';
import type { Turn } from './turns.js';

export type RelationCue = 'change' | 'addition' | null;

export interface ExtractedIdea {
  line: number;
  role: 'user' | 'assistant';
  content: string;
  intent: Intent;
  confidence: number;
  entities: EntityMention[];
  at: number | null;
  cue: RelationCue;
}

export interface ExtractHints {
  project?: string | null;
}

const SOLUTION =
  /\b(fixed|fixes|the fix|fix (?:was|is) to|solved|resolved|solution|workaround|works now|working now|that did it|root cause was|the cause was|was caused by)\b|\b(?:fixed|solved|resolved) (?:it|this|that) by\b/;
const DECISION =
  /\b(?:we|i)(?:'ve| have)? decided\b|\bdecision\b|\b(?:let's|lets|we'll|we will|i'll|i will|we're going to|we are going to|we're|we are) (?:use|go with|switch|move|keep|adopt|stick with|run|store|put|schedule|set|standardi[sz]e on|drop|replace)\b|\b(?:go|going|went) with\b|\b(?:chose|chosen|opted for|settled on|picked)\b|\bfrom now on\b|\bchanged? (?:\w+ ){0,5}(?:from|to)\b|\bswitch(?:ed)? (?:\w+ ){0,3}(?:to|from)\b|\binstead(?: of)?\b/;
const TODO =
  /^(?:todo|to do|next:)|\b(?:need to|needs to|have to|has to|must|should (?:add|write|fix|check|test|update|remove|implement|document|look)|next step|remember to|don't forget|follow[- ]up|later we|still need|left to do|we'll need|to-do)\b/;
const PROBLEM =
  /\b(problem|issue|bug|error|errors|fails|failed|failing|failure|broken|breaks|crash(?:es|ed)?|doesn't work|does not work|not working|can't|cannot|unable to|too slow|timeout|timed out|leak|regression|stuck|hangs|hanging)\b/;
const CONCLUSION =
  /\b(the key (?:insight|point|takeaway)|turns out|it turned out|in conclusion|therefore|this means|which means|we learned|i learned|i realized|i realised|the reason (?:is|was)|because|it seems|it appears|apparently|the upshot|bottom line|in short|overall|so the answer)\b/;
const QUESTION_START =
  /^(?:how|what|why|which|who|whom|where|when|should|shall|could|can|would|do|does|did|is|are|was|were|will|have|has)\b.*\b(?:we|i|you|it|this|that|there|they)\b/;

const TENTATIVE =
  /\b(maybe|might|perhaps|possibly|probably|i think|i guess|i suppose|not sure|unsure|consider|considering|tentative(?:ly)?|for now|for the time being|let's try|we could|could try|seems|appears|an option|one option|not certain|likely)\b/;
const FIRM =
  /\b(definitely|certainly|clearly|confirmed|verified|always|never|must|decided|final|for sure|absolutely|guaranteed|we will|i will)\b/;

const CHANGE =
  /\b(changed? (?:\w+ ){0,5}(?:from|to)|instead(?: of)?|rather than|no longer|not anymore|switch(?:ed|ing)? (?:\w+ ){0,3}(?:to|from)|replac(?:e|ed|ing)|mov(?:e|ed|ing) (?:\w+ ){0,2}from|scratch that|on second thought|revert(?:ed)?|we now use|now we use|supersede[sd]?)\b|^actually,/;
const ADDITION =
  /^(?:additionally|also|furthermore|moreover|in addition|on top of that|plus|besides|and also)\b|\b(as well as|building on|in addition to|on top of that)\b/;

/** A sentence needs this many content words to be an idea of its own. */
const MIN_WORDS = 3;
/** The context idea of a turn keeps this much of its untyped sentences. */
const CONTEXT_CHARS = 400;

export function classify(sentence: string): Intent {
  const s = sentence.toLowerCase().trim();
  if (s.endsWith('?') || (QUESTION_START.test(s) && !s.endsWith('.'))) return 'question';
  if (SOLUTION.test(s)) return 'solution';
  if (DECISION.test(s)) return 'decision';
  if (TODO.test(s)) return 'todo';
  if (PROBLEM.test(s)) return 'problem';
  if (CONCLUSION.test(s)) return 'conclusion';
  return 'context';
}

/** 0..1: firm wording up, tentative wording down; questions and background sit in the middle. */
export function confidenceOf(sentence: string, intent: Intent): number {
  if (intent === 'question') return 0.5;
  const s = sentence.toLowerCase();
  let c = intent === 'context' ? 0.5 : 0.6;
  if (FIRM.test(s)) c += 0.25;
  if (TENTATIVE.test(s)) c -= 0.25;
  return Math.round(Math.min(1, Math.max(0.1, c)) * 100) / 100;
}

export function cueOf(sentence: string): RelationCue {
  const s = sentence.toLowerCase().trim();
  if (CHANGE.test(s)) return 'change';
  if (ADDITION.test(s)) return 'addition';
  return null;
}

/** Ideas of one turn (a user prompt or the model's text; never a tool's output). */
export function extractIdeas(turn: Turn, hints: ExtractHints = {}): ExtractedIdea[] {
  if (turn.role === 'tool') return [];
  const role = turn.role;
  const ideas: ExtractedIdea[] = [];
  const background: { text: string; service: string | null }[] = [];
  for (const s of sentencesOf(turn.text)) {
    if (sayingWordCount(s.text) < MIN_WORDS) continue;
    // "Let's move on to the proxy." changes the topic; it says nothing of its own.
    const intent =
      isTransition(s.text) && sayingWordCount(s.text) <= 8 ? 'context' : classify(s.text);
    if (intent === 'context') {
      background.push(s);
      continue;
    }
    ideas.push({
      line: turn.line,
      role,
      content: s.text,
      intent,
      confidence: confidenceOf(s.text, intent),
      entities: entitiesIn(s.text, { project: hints.project ?? null, service: s.service }),
      at: turn.at,
      cue: cueOf(s.text),
    });
  }
  if (background.length > 0) {
    let content = '';
    for (const b of background) {
      if (content.length + b.text.length + 1 > CONTEXT_CHARS && content.length > 0) break;
      content = content ? `${content} ${b.text}` : b.text;
    }
    const service = background.find((b) => b.service)?.service ?? null;
    ideas.unshift({
      line: turn.line,
      role,
      content: content.length > CONTEXT_CHARS ? `${content.slice(0, CONTEXT_CHARS - 1)}…` : content,
      intent: 'context',
      confidence: confidenceOf(content, 'context'),
      entities: entitiesIn(content, { project: hints.project ?? null, service }),
      at: turn.at,
      cue: cueOf(content),
    });
  }
  return ideas;
}
