/**
 * A script the guard checks: the whole command, or one it runs (`sh -c`, `eval`, a here-doc fed
 * to a shell). It is parsed and walked (walker.ts) within a budget of depth, size and count;
 * past the budget, or when it cannot be parsed, it counts as acting on every service.
 */
import { withTree } from './bash-parser.js';
import { BOTH, type Env, everything, type Input, opaque } from './env.js';
import { clip, type GuardState, MAX_OUTPUT } from './walk.js';
import { Walker } from './walker.js';

const MAX_DEPTH = 12;

export function analyseScript(text: string, stdin: Input, env: Env, state: GuardState): void {
  if (env.depth > MAX_DEPTH) return everything(env, BOTH, 'it nests commands too deeply to check');
  state.budget.scripts -= 1;
  if (state.budget.scripts < 0 || text.length > MAX_OUTPUT)
    return everything(env, BOTH, 'it is too large or complex to check');
  withTree(state.parser, text, (tree) => {
    const root = tree.rootNode;
    if (root.hasError) {
      opaque(
        { ...env, emit: (i) => env.emit({ command: clip(text), ...i }) },
        text,
        'it cannot be parsed as a shell command',
      );
    }
    new Walker(text, root, stdin, env, state).run();
  });
}
