/**
 * What the guard found a command would do, before any cooldown state is consulted: which
 * action, on which services (named exactly, or by a word it could not resolve), and why.
 * Pure.
 */
import type { CooldownAction } from '../../stream/index.js';
import type { GlobToken } from './glob.js';
import { mentions, patternMatchesService, targetMatches } from './service-match.js';
import { literal, type Word, wordGlob, wordSource } from './words.js';

export interface TargetPattern {
  /** The word as written (`jellyfi[n]`, `$S`, `{}`), for the reason. */
  source: string;
  glob: GlobToken[];
}

export interface RemediationIntent {
  action: CooldownAction;
  /** Services named exactly; these are recorded when the command is allowed. */
  targets: string[];
  /** Words that could expand to a service name (globs, variables, substitutions). */
  patterns: TargetPattern[];
  /** Text the guard cannot take apart (interpreter code, a script it could not parse). */
  mentions: string[];
  /** Acts on services it does not name (compose without a service, unreadable stdin). */
  untargeted: boolean;
  /** The simple command it came from, as written. */
  command: string;
  /** Why it counts, for the refusal ("names no service, so it acts on every service"). */
  why: string;
}

export type Matched = { service: string; how: 'named' | 'pattern' | 'mentioned' | 'untargeted' };

/** A target as a service name: lower-cased, without `.service` or `deployment/` decorations. */
export function targetName(word: string): string {
  return word
    .toLowerCase()
    .replace(KIND_PREFIX, '')
    .replace(/\.(service|socket|timer)$/, '');
}

const KIND_PREFIX =
  /^(deployments?|deploy|statefulsets?|sts|daemonsets?|ds|pods?|po|replicasets?|rs|jobs?|cronjobs?|services?|svc)(\.apps|\.batch)?\//;

/** Whether the intent could touch `service`, and how. */
export function intentMatch(intent: RemediationIntent, service: string): Matched | null {
  if (intent.targets.some((t) => targetMatches(t, service) || targetMatches(service, t)))
    return { service, how: 'named' };
  if (intent.patterns.some((p) => patternMatchesService(p.glob, service)))
    return { service, how: 'pattern' };
  if (intent.mentions.some((text) => mentions(text, service))) return { service, how: 'mentioned' };
  if (intent.untargeted) return { service, how: 'untargeted' };
  return null;
}

/** Targets of `words`: exact names where the word is known, patterns where it is not. */
export function targetsOf(words: readonly Word[]): Pick<RemediationIntent, 'targets' | 'patterns'> {
  const targets: string[] = [];
  const patterns: TargetPattern[] = [];
  for (const w of words) {
    const lit = literal(w);
    if (lit !== null) {
      if (lit !== '') targets.push(targetName(lit));
    } else {
      patterns.push({ source: wordSource(w), glob: wordGlob(w) });
    }
  }
  return { targets, patterns };
}

/** A word as a pattern only (never recorded): for words that name services loosely. */
export function patternOf(w: Word, transform?: (s: string) => string): TargetPattern {
  const lit = literal(w);
  if (lit !== null && transform) {
    return { source: lit, glob: wordGlob([{ t: 'lit', s: transform(lit), glob: true }]) };
  }
  return { source: wordSource(w), glob: wordGlob(w) };
}
