/**
 * Which services a Bash command would restart or redeploy. The command is parsed by a real
 * bash parser (tree-sitter's grammar, see guard/bash-parser.ts) and every simple command in it
 * is checked: inside lists, pipelines, compound commands, functions and substitutions, inside
 * `sh -c`/`bash -c --`/`su -c`/`eval`/ssh strings, here-docs and here-strings fed to a shell,
 * text piped into a shell (decoded when it is echo/printf/base64 of known text), interpreter
 * code, and behind wrappers with their options. What cannot be resolved (a variable, a glob, a
 * compose command without a service, an unreadable script) fails closed: it counts against
 * every service it could name.
 */
import type { CooldownLimits, GuardAllowance } from '../config/index.js';
import type { CooldownAction } from '../stream/index.js';
import { checkServiceName } from '../text-rules.js';
import type { ServiceCooldown } from './cooldown-policy.js';
import { bashParser } from './guard/bash-parser.js';
import { classifyCommand } from './guard/classify.js';
import {
  BOTH,
  type CommandWatch,
  type Engine,
  type Env,
  everything,
  NO_INPUT,
  type Refusal,
} from './guard/env.js';
import { intentMatch, type Matched, type RemediationIntent } from './guard/intent.js';
import { analyseScript } from './guard/script.js';
import { clip, type GuardState } from './guard/walk.js';

export { mentions, targetMatches } from './guard/service-match.js';
export { targetName, type RemediationIntent } from './guard/intent.js';
export type { CommandWatch, Refusal } from './guard/env.js';

const MAX_COMMAND = 1 << 20;

function engineFor(state: GuardState): Engine {
  const engine: Engine = {
    classify(argv, stdin, env) {
      const inner: Env = { ...env, depth: env.depth + 1 };
      if (inner.depth > 24) return everything(inner, BOTH, 'it nests commands too deeply to check');
      classifyCommand(argv, stdin, inner);
    },
    script(text, stdin, why, env) {
      const inner: Env = {
        ...env,
        depth: env.depth + 1,
        // The inner command is named in the reason; say what ran it (the innermost runner).
        emit: (intent) =>
          env.emit(
            intent.why.endsWith(')') ? intent : { ...intent, why: `${intent.why} (${why})` },
          ),
      };
      analyseScript(text, stdin, inner, state);
    },
    file: (path) => state.files.get(path),
    watch: state.watch,
  };
  return engine;
}

/** What the guard found in a command: what it could restart, and what it refuses outright. */
export interface CommandCheck {
  intents: RemediationIntent[];
  refusals: Refusal[];
}

function unique<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const key = JSON.stringify(i);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Every restart or redeployment the command could perform, and every refusal. Never throws.
 * A watch is told of every simple command and redirect on the way.
 */
export async function checkCommand(command: string, watch?: CommandWatch): Promise<CommandCheck> {
  const out: RemediationIntent[] = [];
  const refusals: Refusal[] = [];
  const failClosed = (why: string): CommandCheck => ({
    intents: BOTH.map((action): RemediationIntent => ({
      action,
      targets: [],
      patterns: [],
      mentions: [],
      untargeted: true,
      command: clip(command),
      why,
    })),
    refusals: [],
  });
  if (command.length > MAX_COMMAND) return failClosed('it is too long to check');
  try {
    const state: GuardState = {
      parser: await bashParser(),
      budget: { scripts: 200, commands: 5000 },
      files: new Map(),
      watch,
    };
    const env: Env = {
      command: clip(command),
      depth: 0,
      emit: (intent) => out.push({ command: clip(command), ...intent }),
      refuse: (refusal) => refusals.push({ command: clip(command), ...refusal }),
      engine: engineFor(state),
    };
    analyseScript(command, NO_INPUT, env, state);
  } catch (err) {
    return failClosed(`the guard could not check it (${(err as Error).message})`);
  }
  return { intents: unique(out), refusals: unique(refusals) };
}

/** Every restart or redeployment the command could perform. Never throws: failures fail closed. */
export async function remediationIntents(command: string): Promise<RemediationIntent[]> {
  return (await checkCommand(command)).intents;
}

/** The refusals the operator has not allowed (WATCHKEEPER_GUARD_ALLOW_*). */
export function unallowedRefusals(refusals: readonly Refusal[], allow: GuardAllowance): Refusal[] {
  const allowed = (names: readonly string[], name: string) =>
    names.includes('all') || names.includes(name);
  return refusals.filter((r) =>
    r.kind === 'alias'
      ? !allow.aliases
      : !allowed(r.kind === 'hook' ? (allow.hooks ?? []) : allow.interpreters, r.name),
  );
}

/** Why a refusal counts, in a sentence for the model, with the switch that would allow it. */
export function refusalDetail(r: Refusal): string {
  const cmd = `\`${clip(r.command, 120)}\``;
  const allow =
    r.kind === 'alias'
      ? 'WATCHKEEPER_GUARD_ALLOW_ALIASES=true'
      : r.kind === 'hook'
        ? `WATCHKEEPER_GUARD_ALLOW_HOOKS=${r.name}`
        : `WATCHKEEPER_GUARD_ALLOW_INTERPRETERS=${r.name}`;
  return `Refused ${cmd}: ${r.why}. The operator can allow this with ${allow}`;
}

export interface Conflict {
  intent: RemediationIntent;
  /** The service refused (`*` when the action is disabled and nothing was named). */
  service: string;
  /** The cooldown that was hit; null when the action is disabled (limit 0). */
  cooldown: ServiceCooldown | null;
  how: Matched['how'] | 'disabled';
}

/** The first intent that would touch a service in cooldown (or a disabled action), if any. */
export function findConflict(
  intents: readonly RemediationIntent[],
  state: readonly ServiceCooldown[],
  limits: CooldownLimits,
): Conflict | null {
  for (const intent of intents) {
    if (limits[intent.action].limit === 0)
      return { intent, service: intent.targets[0] ?? '*', cooldown: null, how: 'disabled' };
    for (const s of state) {
      if (s.action !== intent.action || !s.inCooldown) continue;
      const match = intentMatch(intent, s.service);
      if (match) return { intent, service: s.service, cooldown: s, how: match.how };
    }
  }
  return null;
}

/** Why the conflict counts, in a sentence for the model. */
export function conflictDetail(c: Conflict): string {
  const { intent, service } = c;
  const cmd = `\`${clip(intent.command, 120)}\``;
  switch (c.how) {
    case 'named':
    case 'disabled':
      return `Refused ${cmd}: ${intent.why}`;
    case 'pattern': {
      const words = intent.patterns.map((p) => `\`${p.source}\``).join(', ');
      return `Refused ${cmd}: ${intent.why}, and ${words} cannot be resolved and could name ${service}`;
    }
    case 'mentioned':
      return `Refused ${cmd}: ${intent.why}, and it names ${service}`;
    case 'untargeted': {
      const verb = intent.action === 'restart' ? 'restart' : 'redeploy';
      return `Refused ${cmd}: ${intent.why}. It could ${verb} ${service}`;
    }
  }
}

/** The (service, action) pairs an allowed command is recorded under: exact, valid names only. */
export function recordableTargets(
  intents: readonly RemediationIntent[],
): { service: string; action: CooldownAction }[] {
  const seen = new Set<string>();
  const out: { service: string; action: CooldownAction }[] = [];
  for (const intent of intents) {
    for (const target of intent.targets) {
      const checked = checkServiceName(target);
      if (!checked.ok) continue;
      const key = `${intent.action}\u0000${checked.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ service: checked.name, action: intent.action });
    }
  }
  return out;
}
