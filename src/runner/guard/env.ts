/**
 * What a command classifier is handed: where the command's standard input comes from, a way to
 * classify an inner command or script, and the sink for what it finds. Also the few emitters
 * every classifier shares, including the fail-closed one for words it cannot resolve.
 */
import type { CooldownAction } from '../../stream/index.js';
import { globsIntersect, literalGlob } from './glob.js';
import { type RemediationIntent, type TargetPattern, targetsOf } from './intent.js';
import { wordsOf } from './options.js';
import {
  hasUnknown,
  literal,
  maySplit,
  UNKNOWN_MARK,
  type Word,
  wordGlob,
  wordSource,
} from './words.js';

/** A command's standard input, as far as it can be known. */
export type Input =
  { kind: 'none' } | { kind: 'text'; text: string } | { kind: 'unknown'; source: string };

export const NO_INPUT: Input = { kind: 'none' };

/**
 * Something the guard refuses whatever the cooldowns say, because it could hide a restart from
 * the guard: an alias, interpreter code that can start a process, or a command run from an
 * option or variable (a hook: `git -c alias.x='!cmd'`, `tar --to-command`). The operator can
 * allow each kind (WATCHKEEPER_GUARD_ALLOW_ALIASES, _INTERPRETERS, _HOOKS).
 */
export interface Refusal {
  kind: 'alias' | 'interpreter' | 'hook';
  /** The name as the operator allows it (`python`, `awk`, `git`, `BASH_ENV`); `alias` for aliases. */
  name: string;
  /** The simple command it came from, as written. */
  command: string;
  /** Why, for the model: "the script defines an alias (`alias r='docker restart'`)". */
  why: string;
}

export interface Env {
  /** The simple command as written, for messages. */
  readonly command: string;
  /** How many commands and scripts deep this one is nested. */
  readonly depth: number;
  /** Takes what was found; `command` defaults to the innermost simple command. */
  emit(intent: Omit<RemediationIntent, 'command'> & { command?: string }): void;
  /** Takes a refusal; `command` defaults to the innermost simple command. */
  refuse(refusal: Omit<Refusal, 'command'> & { command?: string }): void;
  readonly engine: Engine;
}

/**
 * Told of every simple command the guard reads (its words expanded, after any wrapper) and of
 * every file a redirect writes: the runbook rules are checked against them.
 */
export interface CommandWatch {
  command(argv: readonly Word[]): void;
  redirect(target: Word): void;
}

export interface Engine {
  /** Classifies an inner command (after a wrapper such as sudo or docker exec). */
  classify(argv: Word[], stdin: Input, env: Env): void;
  /** Parses and checks a script held in a string (`sh -c`, `eval`, ssh, a here-doc). */
  script(text: string, stdin: Input, why: string, env: Env): void;
  /**
   * What the command itself wrote to `path` earlier (a redirect, tee, a process substitution):
   * each content written, null where it cannot be known; undefined when it wrote nothing there.
   */
  file(path: string): readonly (string | null)[] | undefined;
  readonly watch?: CommandWatch;
}

/** A program's classifier: its arguments, its input, and the program name as invoked. */
export type Handler = (args: Word[], stdin: Input, env: Env, program: string) => void;

export const BOTH: readonly CooldownAction[] = ['restart', 'redeployment'];

/**
 * Words that make a command restart-like when the guard cannot tell what the command does: seen
 * as a word or as a delimited part of one (`restart-jellyfin.sh`, `.../containers/x/restart`).
 */
const VERBS = wordsOf(`
  restart reload-or-restart stop start kill killall pkill rm remove delete destroy down up scale
  rollout rollback undo upgrade install uninstall deploy redeploy recreate update reboot shutdown
  halt poweroff terminate bounce respawn`);
const VERB_RE = new RegExp(`(^|[^a-z0-9])(${VERBS.join('|')})($|[^a-z0-9])`, 'i');
const VERB_GLOBS = VERBS.map(literalGlob);

/** True when text holds a restart-like verb, or a part the guard could not read. */
function textHasVerb(text: string): boolean {
  return VERB_RE.test(text) || text.includes(UNKNOWN_MARK);
}

/** True when the word is, contains or could expand to a restart-like verb. */
function couldBeVerb(word: Word): boolean {
  const lit = literal(word);
  if (lit !== null) return VERB_RE.test(lit);
  if (hasUnknown(word)) return true;
  const glob = wordGlob(word);
  return VERB_GLOBS.some((v) => globsIntersect(glob, v)) || VERB_RE.test(wordSource(word));
}

/** A restart or redeployment of the services `words` name. */
export function named(env: Env, action: CooldownAction, words: readonly Word[], why: string): void {
  const { targets, patterns } = targetsOf(words);
  env.emit({ action, targets, patterns, mentions: [], untargeted: false, why });
}

/**
 * Classifies a command run inside a container or pod (`docker exec`, `kubectl exec`): whatever
 * it restarts, even "everything" or an unnamed process, counts against that container.
 */
export function insideContainer(env: Env, container: Word, argv: Word[], stdin: Input): void {
  const named = targetsOf([container]);
  env.engine.classify(argv, stdin, {
    ...env,
    emit: (intent) =>
      env.emit({
        ...intent,
        targets: [...intent.targets, ...named.targets],
        patterns: [...intent.patterns, ...named.patterns],
        untargeted: false,
        why: `${intent.why} inside ${wordSource(container)}`,
      }),
  });
}

/** An action on every service (none named, or the command cannot be read). */
export function everything(env: Env, actions: readonly CooldownAction[], why: string): void {
  for (const action of actions)
    env.emit({ action, targets: [], patterns: [], mentions: [], untargeted: true, why });
}

/**
 * Fail closed for a command the guard cannot resolve: when any word is or could be a
 * restart-like verb (always, when the program itself is unknown), any service a word names or
 * could expand to counts, for both actions. Nothing is recorded for these.
 */
export function unresolved(
  env: Env,
  words: readonly Word[],
  why: string,
  programUnknown = false,
): void {
  if (!programUnknown && !words.some(couldBeVerb)) return;
  const mentions: string[] = [];
  const patterns: TargetPattern[] = [];
  for (const w of words) {
    const lit = literal(w);
    if (lit !== null) mentions.push(lit);
    else patterns.push({ source: wordSource(w), glob: wordGlob(w) });
  }
  for (const action of BOTH)
    env.emit({ action, targets: [], patterns, mentions, untargeted: false, why });
}

/** Code the guard cannot take apart (interpreter code, an unknown script): checked as text. */
export function opaque(env: Env, text: string, why: string): void {
  if (!textHasVerb(text)) return;
  const untargeted = text.includes(UNKNOWN_MARK);
  for (const action of BOTH)
    env.emit({ action, targets: [], patterns: [], mentions: [text], untargeted, why });
}

/** A program word that is not known: `$CMD`, `"$(pick)"`; unquoted, it may carry arguments too. */
export function unknownProgram(env: Env, argv: readonly Word[]): void {
  const [program, ...args] = argv;
  const words = program && maySplit(program) ? argv : args;
  unresolved(
    env,
    words,
    `it runs \`${wordSource(program ?? [])}\`, a program the guard cannot resolve`,
    true,
  );
}
