/**
 * The bash grammar of tree-sitter (the `tree-sitter-bash` package's WASM build), run by
 * `web-tree-sitter`: a real parser for bash, here-docs, here-strings, substitutions and compound
 * commands included. Loaded once per process, from files inside node_modules (nothing is
 * downloaded); the hook pays the load (tens of milliseconds) once per tool call.
 */
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';

import type { Language, Parser, Tree } from 'web-tree-sitter';

let loading: Promise<Parser> | null = null;

async function load(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  // Imported here, so that commands other than the hook never load it.
  const { Language, Parser } = await import('web-tree-sitter');
  // V8 optimises a WASM module on background threads and a process cannot exit before those
  // jobs finish: about 0.4 s added to every hook call. The baseline compiler alone parses a
  // command in about a millisecond, so the optimising tier is turned off for these modules.
  let bash: Language;
  setFlagsFromString('--liftoff-only');
  try {
    await Parser.init();
    bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  } finally {
    setFlagsFromString('--no-liftoff-only');
  }
  const parser = new Parser();
  parser.setLanguage(bash);
  return parser;
}

/** The shared parser; a failed load is retried on the next call. */
export function bashParser(): Promise<Parser> {
  loading ??= load().catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

/** Parses `text`, hands the tree to `use`, and frees it (trees live in WASM memory). */
export function withTree<T>(parser: Parser, text: string, use: (tree: Tree) => T): T {
  const tree = parser.parse(text);
  if (!tree) throw new Error('the shell parser returned no tree');
  try {
    return use(tree);
  } finally {
    tree.delete();
  }
}
