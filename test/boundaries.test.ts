/**
 * The import direction of ARCHITECTURE.md, checked on every source file: layers import
 * downwards only, the two leaves stay pure, only the composition root reads the environment,
 * and no two files import each other, however indirectly.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Top-level area of a path inside src/: a folder name, or the file name for root files. */
function areaOf(absPath: string): string {
  const rel = relative(SRC, absPath);
  const [first] = rel.split(/[\\/]/);
  return first!.replace(/\.(ts|js)$/, '');
}

// What each area may import (value imports). Shared leaves are errors, clock, text-rules,
// make-dir, secrets (the configuration's credentials and the one function masking them), config
// and log.
const SHARED = ['errors', 'clock', 'text-rules', 'make-dir', 'secrets'];
const ALLOWED: Record<string, string[]> = {
  errors: [],
  // Creating a folder with an error at once where the system refuses it (never a spin).
  'make-dir': ['errors'],
  clock: [],
  'text-rules': [],
  secrets: [],
  log: ['errors', 'secrets'],
  // Prometheus measurements: a leaf that embed and knowledge time into, read by /metrics.
  metrics: [],
  config: ['errors', 'text-rules'],
  stream: ['errors', 'text-rules'],
  memory: ['errors', 'clock', 'text-rules'],
  db: [...SHARED],
  // One JSON POST with a deadline and clear errors: below both the embedding backends and the
  // model gateway's HTTP backends.
  net: [...SHARED],
  // Embedding backends know no store: the caller records vectors.
  embed: [...SHARED, 'memory', 'net', 'metrics'],
  // The one memory service, its search and the services catalog.
  knowledge: [...SHARED, 'memory', 'db', 'embed', 'metrics'],
  // Spawning the Claude CLI (environment allow-list, process group, timeouts): below both the
  // runner and the model gateway's CLI backend.
  process: [...SHARED],
  // The one model gateway: job records in db, the CLI through process.
  gateway: [...SHARED, 'memory', 'db', 'process', 'net'],
  // Sliding-window summaries and extraction of conversations (seeds 000, 001).
  conversations: [...SHARED, 'knowledge', 'gateway', 'embed', 'db', 'memory', 'stream'],
  // The memory graph of transcripts (seed 004): a sibling of conversations, never importing it.
  // (process: only whether a lock's holder is alive.)
  graph: [...SHARED, 'knowledge', 'gateway', 'embed', 'db', 'memory', 'stream', 'process'],
  // Memories out and in (issue 14): export, import through the memory service, the MCP
  // memory server's graph into memories and graph entities.
  portability: [...SHARED, 'knowledge', 'embed', 'db', 'memory', 'graph'],
  // Notifications: records in db, deliveries over HTTP, SMTP or the apprise command.
  notify: [...SHARED, 'config', 'log', 'db'],
  // The operator's repositories and the built-in library: manifests, checks, playbooks, skills.
  runbooks: [...SHARED, 'memory', 'stream', 'db', 'knowledge'],
  // The runner writes chain summaries through the model gateway (a layer below it).
  runner: [
    ...SHARED,
    'config',
    'log',
    'stream',
    'memory',
    'db',
    'knowledge',
    'process',
    'gateway',
    'runbooks',
  ],
  web: [
    ...SHARED,
    'config',
    'log',
    'metrics',
    'stream',
    'memory',
    'db',
    'knowledge',
    'gateway',
    'conversations',
    'graph',
    'portability',
    'runbooks',
  ],
  // The stdio transport splits its input with the stream layer's bounded line splitter.
  mcp: [...SHARED, 'config', 'log', 'stream', 'memory', 'db', 'knowledge'],
  // The simulated Anthropic API stands alone: it knows nothing of watchkeeper.
  sim: ['errors'],
  cli: [
    ...SHARED,
    'config',
    'log',
    'metrics',
    'stream',
    'memory',
    'db',
    'embed',
    'knowledge',
    'notify',
    'runbooks',
    'runner',
    'web',
    'mcp',
    'sim',
    'process',
    'net',
    'gateway',
    'conversations',
    'graph',
    'portability',
  ],
  main: [
    ...SHARED,
    'config',
    'log',
    'metrics',
    'stream',
    'memory',
    'db',
    'embed',
    'knowledge',
    'notify',
    'runbooks',
    'runner',
    'web',
    'mcp',
    'cli',
    'sim',
    'process',
    'net',
    'gateway',
    'conversations',
  ],
};
// Type-only imports may also reach these.
const TYPES_ALSO: Record<string, string[]> = {
  // Which configuration fields hold URLs; the values arrive from the composition root.
  secrets: ['config'],
  // The background loops' outage record logs through the logger it is handed.
  db: ['memory', 'stream', 'log'],
  knowledge: ['embed'],
  gateway: ['config', 'log'],
  conversations: ['config', 'log'],
  web: ['runner', 'stream'],
  mcp: ['runner', 'stream'],
  // The notifier reads the runner's alert type; the runner never sees the notifier.
  notify: ['runner'],
};
// The store's folders, one per table family, all of them the db layer; the engine core (open,
// the interface both engines implement, migrate) and the outage record stay in db/ itself.
const DB_FOLDERS = [
  'memories',
  'sessions',
  'events',
  'graph',
  'conversations',
  'notifications',
  'cooldowns',
  'overview',
  'claudeops',
  'store-copy',
  'postgres',
];
const IO_MODULES =
  /^node:(fs|fs\/promises|net|http|https|child_process|dgram|worker_threads|cluster|os)$/;

interface Import {
  file: string;
  spec: string;
  typeOnly: boolean;
  dynamic: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  const re =
    /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of text.matchAll(re)) {
    out.push({ file, spec: (m[3] ?? m[4])!, typeOnly: Boolean(m[2]), dynamic: m[4] !== undefined });
  }
  return out;
}

const files = sourceFiles(SRC);

/** The source file a relative specifier names (`./x.js` is written for `./x.ts`), if it is one. */
function targetOf(file: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const path = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
  return existsSync(path) ? path : null;
}

/**
 * Every import circle among the source files (type imports included), one per strongly
 * connected group (Tarjan's algorithm), each listed from one of its files. A dynamic `import()`
 * is left out: it is loaded later, once both files have run, so it orders nothing.
 */
function importCycles(all: string[]): string[][] {
  const edges = new Map(
    all.map((f) => [
      f,
      importsOf(f)
        .filter((i) => !i.dynamic)
        .map((i) => targetOf(f, i.spec))
        .filter((t): t is string => t !== null),
    ]),
  );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || edges.get(v)!.includes(v)) cycles.push(group.reverse());
  };
  for (const f of all) if (!index.has(f)) visit(f);
  return cycles;
}

describe('import direction (ARCHITECTURE.md)', () => {
  it('finds the source files it checks', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('imports point down the layers only', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = areaOf(file);
      const allowed = ALLOWED[from];
      if (!allowed) {
        violations.push(`${relative(SRC, file)}: area "${from}" is not in the layer table`);
        continue;
      }
      for (const imp of importsOf(file)) {
        if (!imp.spec.startsWith('.')) continue;
        const to = areaOf(resolve(dirname(file), imp.spec));
        if (to === from) continue;
        const ok = allowed.includes(to) || (imp.typeOnly && (TYPES_ALSO[from] ?? []).includes(to));
        if (!ok)
          violations.push(
            `${relative(SRC, file)} imports ${imp.spec}${imp.typeOnly ? ' (type)' : ''}`,
          );
      }
    }
    expect(violations).toEqual([]);
  });

  it('has no import circles', () => {
    const circles = importCycles(files).map((group) =>
      group.map((f) => relative(SRC, f)).join(' -> '),
    );
    expect(circles).toEqual([]);
  });

  it('finds an import circle where there is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'circle-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B;\n");
      writeFileSync(join(dir, 'b.ts'), "import { c } from './c.js';\nexport type B = number;\n");
      writeFileSync(join(dir, 'c.ts'), "export { type A } from './a.js';\nexport const c = 1;\n");
      writeFileSync(join(dir, 'd.ts'), "import { c } from './c.js';\nexport const d = c;\n");
      const found = importCycles(['a', 'b', 'c', 'd'].map((n) => join(dir, `${n}.ts`)));
      expect(found.map((g) => g.map((f) => relative(dir, f)).sort())).toEqual([
        ['a.ts', 'b.ts', 'c.ts'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the store in its folders, each saying what it offers', () => {
    const DB = join(SRC, 'db');
    const stray = files
      .filter((f) => areaOf(f) === 'db')
      .map((f) => relative(DB, f).split(/[\\/]/))
      .filter((parts) => parts.length > 1 && !DB_FOLDERS.includes(parts[0]!))
      .map((parts) => parts.join('/'));
    expect(stray).toEqual([]);
    const undescribed = DB_FOLDERS.filter((d) => d !== 'postgres').filter((d) => {
      const index = join(DB, d, 'index.ts');
      return !existsSync(index) || !readFileSync(index, 'utf8').startsWith('/**');
    });
    expect(undescribed).toEqual([]);
  });

  it('keeps the stream and memory leaves free of I/O', () => {
    const violations = files
      .filter((f) => ['stream', 'memory', 'text-rules'].includes(areaOf(f)))
      .flatMap((f) =>
        importsOf(f).filter(
          (i) => IO_MODULES.test(i.spec) || i.spec === 'better-sqlite3' || i.spec === 'execa',
        ),
      )
      .map((i) => `${relative(SRC, i.file)} imports ${i.spec}`);
    expect(violations).toEqual([]);
  });

  it('reads the clock and the environment only at the edges', () => {
    const violations: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const area = areaOf(file);
      if (/process\.env/.test(text) && area !== 'main' && area !== 'config')
        violations.push(`${relative(SRC, file)} reads process.env`);
      if (/Date\.now\(\)/.test(text) && (area === 'stream' || area === 'memory'))
        violations.push(`${relative(SRC, file)} reads the clock`);
    }
    expect(violations).toEqual([]);
  });
});
