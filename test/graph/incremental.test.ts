/**
 * Incremental indexing: an append reads only the new lines, a rerun on an unchanged file does
 * nothing, an unfinished last line waits for the next run, a file rewritten in place or rotated is
 * read again from the start, and two jobs for one file never run at once.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { fixtureCopy, type GraphApp, graphApp, ideaRows } from '../helpers/graph.js';

let app: GraphApp | undefined;
let dir: string | undefined;
afterEach(() => {
  app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  app = undefined;
  dir = undefined;
});

/** The fixture's first `n` lines in its place, and the rest to append. */
function split(n: number) {
  const copy = fixtureCopy();
  dir = copy.dir;
  const lines = readFileSync(copy.main, 'utf8').split('\n').filter(Boolean);
  writeFileSync(copy.main, `${lines.slice(0, n).join('\n')}\n`);
  return { file: copy.main, rest: lines.slice(n) };
}

function snapshot(a: GraphApp) {
  const q = (sql: string) => a.stores.db.prepare(sql).all();
  return {
    ideas: q('SELECT * FROM ideas ORDER BY id'),
    spans: q('SELECT * FROM spans ORDER BY id'),
    relations: q('SELECT from_id, to_id, relation_type FROM relations ORDER BY id'),
    entities: q('SELECT * FROM idea_entities ORDER BY idea_id, entity_id'),
  };
}

describe('incremental indexing', () => {
  it('reads only what was appended, and ends where one run over the whole file ends', async () => {
    const { file, rest } = split(12);
    app = graphApp();
    const first = await app.graph.index(file);
    expect(first).toMatchObject({ status: 'indexed', lines: 12 });
    const earlier = ideaRows(app);
    appendFileSync(file, `${rest.join('\n')}\n`);
    const second = await app.graph.index(file);
    expect(second).toMatchObject({ status: 'indexed', lines: rest.length, reset: false });
    // What the first run stored stays (answered flags aside); the second only adds.
    const strip = (rows: ReturnType<typeof ideaRows>) =>
      rows.map((r) => [r.id, r.line, r.intent, r.content]);
    expect(strip(ideaRows(app).slice(0, earlier.length))).toEqual(strip(earlier));
    expect(second.ideas).toBe(ideaRows(app).length - earlier.length);
    expect(
      Math.min(
        ...ideaRows(app)
          .slice(earlier.length)
          .map((i) => i.line),
      ),
    ).toBeGreaterThan(12);

    const whole = graphApp();
    try {
      await whole.graph.index(file);
      const same = (rows: ReturnType<typeof ideaRows>) =>
        rows.map((r) => [r.line, r.intent, r.content, r.answered]);
      expect(same(ideaRows(app))).toEqual(same(ideaRows(whole)));
      const spans = (a: GraphApp) =>
        a.stores.db
          .prepare('SELECT start_line, end_line, depth FROM spans ORDER BY start_line')
          .all();
      expect(spans(app)).toEqual(spans(whole));
      const rels = (a: GraphApp) =>
        a.stores.db.prepare('SELECT relation_type FROM relations ORDER BY relation_type').all();
      expect(rels(app)).toEqual(rels(whole));
    } finally {
      whole.close();
    }
  });

  it('a question asked in one run is answered by a reply appended later', async () => {
    const { file, rest } = split(2);
    app = graphApp();
    await app.graph.index(file);
    expect(ideaRows(app).find((i) => i.intent === 'question')).toMatchObject({ answered: 0 });
    appendFileSync(file, `${rest.slice(0, 2).join('\n')}\n`);
    await app.graph.index(file);
    expect(ideaRows(app).find((i) => i.intent === 'question')).toMatchObject({ answered: 1 });
  });

  it('does nothing on an unchanged file', async () => {
    const { file } = split(21);
    app = graphApp();
    await app.graph.index(file);
    const before = snapshot(app);
    const state = await app.graph.stores.sources.state(file);
    expect(await app.graph.index(file)).toMatchObject({ status: 'unchanged', lines: 0, ideas: 0 });
    expect(snapshot(app)).toEqual(before);
    expect(await app.graph.stores.sources.state(file)).toEqual(state);
  });

  it('leaves an unfinished last line for the next run', async () => {
    const { file, rest } = split(12);
    app = graphApp();
    await app.graph.index(file);
    const line = rest[0]!;
    appendFileSync(file, line.slice(0, 40));
    const partial = await app.graph.index(file);
    expect(partial).toMatchObject({ lines: 0, ideas: 0, partialLine: true });
    appendFileSync(file, `${line.slice(40)}\n`);
    const done = await app.graph.index(file);
    expect(done).toMatchObject({ lines: 1, partialLine: false });
    expect(ideaRows(app).filter((i) => i.line === 13).length).toBeGreaterThan(0);
  });

  it('reads a file rewritten in place again from the start, forgetting what it said before', async () => {
    const { file } = split(21);
    app = graphApp();
    await app.graph.index(file);
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    // Rewritten in place (same inode): another first prompt, fewer lines.
    const first = JSON.parse(lines[1]!) as { message: { content: string } };
    first.message.content =
      'We need to replace the failing disk in the NAS. Which model should we buy?';
    writeFileSync(file, `${[lines[0], JSON.stringify(first), ...lines.slice(2, 4)].join('\n')}\n`);
    const report = await app.graph.index(file);
    expect(report).toMatchObject({ reset: true, status: 'indexed', lines: 4 });
    const contents = ideaRows(app).map((i) => i.content);
    expect(contents).toContain('Which model should we buy?');
    expect(contents.some((c) => c.includes('How long may the restic backup'))).toBe(false);
    expect(contents.some((c) => c.includes('from 02:00 to 01:00'))).toBe(false);
  });

  it('reads a rotated file (a new file at the same path) from the start', async () => {
    const { file } = split(21);
    app = graphApp();
    await app.graph.index(file);
    const ideas = ideaRows(app).length;
    const text = readFileSync(file);
    renameSync(file, `${file}.1`);
    writeFileSync(file, text);
    const report = await app.graph.index(file);
    expect(report).toMatchObject({ reset: true, lines: 21 });
    expect(ideaRows(app)).toHaveLength(ideas);
  });
});

describe('one indexing job per file', () => {
  it('runs two jobs of this process one after the other, the second reading nothing new', async () => {
    const { file } = split(21);
    app = graphApp();
    const [a, b] = await Promise.all([app.graph.index(file), app.graph.index(file)]);
    expect([a.status, b.status].sort()).toEqual(['indexed', 'unchanged']);
    const contents = ideaRows(app).map((i) => i.content);
    expect(new Set(contents).size).toBe(contents.length);
  });

  it('leaves a job held by another live process to that process, with a note to read again', async () => {
    const { file } = split(21);
    app = graphApp();
    const locks = join(app.dataDir, 'graph-locks');
    mkdirSync(locks, { recursive: true });
    const name = createHash('sha256').update(file).digest('hex').slice(0, 32);
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {
      stdio: 'ignore',
    });
    try {
      writeFileSync(join(locks, `${name}.lock`), String(other.pid));
      const report = await app.graph.index(file);
      expect(report).toMatchObject({ status: 'queued', holder: other.pid, lines: 0 });
      expect(ideaRows(app)).toEqual([]);
      expect(existsSync(join(locks, `${name}.again`))).toBe(true);
    } finally {
      other.kill();
    }
    await new Promise((r) => other.once('exit', r));
    // The holder is gone: its lock is stale and the next job runs.
    expect(await app.graph.index(file)).toMatchObject({ status: 'indexed', lines: 21 });
    expect(existsSync(join(locks, `${name}.lock`))).toBe(false);
  });
});
