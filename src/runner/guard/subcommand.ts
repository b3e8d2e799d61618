/**
 * A tool with sub-commands (`kubectl rollout`, `helm upgrade`): its options scanned and its
 * verb read, or the guard told it cannot be. Pure.
 */
import { type Env, unresolved } from './env.js';
import { type OptionSpec, scanOptions } from './options.js';
import { literal, type Word } from './words.js';

/**
 * A tool with sub-commands (`kubectl rollout`, `helm upgrade`): its options scanned and its verb
 * read. Null when there is no verb, or when it cannot be read (and the guard has been told so).
 */
export function subcommand(args: Word[], spec: OptionSpec, env: Env, program: string) {
  const scan = scanOptions(args, spec);
  const [sub, ...ops] = scan.operands;
  if (!sub) return null;
  const verb = literal(sub);
  if (verb === null || scan.unresolved) {
    unresolved(env, args, `its \`${program}\` command cannot be resolved`, true);
    return null;
  }
  return { scan, verb, ops, what: `\`${program} ${verb}\`` };
}
