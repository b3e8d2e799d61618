/**
 * The memory tools over MCP, driven by the SDK's own client over stdio against the real
 * `watchkeeper mcp` process (bin/watchkeeper.js, so dist/ must be built) on a temp data folder.
 * Embeddings are off here (the lexical measure and its thresholds); the model's measure is
 * covered in memory-tools-embeddings.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { systemClock } from '../../src/clock.js';
import { openStores, type Stores } from '../../src/db/index.js';
import { cliIn } from '../helpers/cli.js';
import { connectMcp, type McpSession } from '../helpers/mcp.js';

let mcp: McpSession;
let stores: Stores;

beforeEach(async () => {
  mcp = await connectMcp();
  stores = openStores(`${mcp.dataDir}/watchkeeper.db`);
});
afterEach(async () => {
  stores.close();
  await mcp.close();
});

type Structured = Record<string, unknown> & {
  memory?: Record<string, unknown>;
  results?: Record<string, unknown>[];
  matches?: Record<string, unknown>[];
};
const data = (r: { structuredContent?: unknown }) => r.structuredContent as Structured;

describe('the memory tools over stdio', () => {
  it('lists exactly the four tools, each with its input schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'memory_add',
      'memory_query',
      'memory_reinforce',
      'memory_verify',
    ]);
    const add = tools.find((t) => t.name === 'memory_add')!;
    expect(add.inputSchema.required).toEqual(['content']);
    expect(Object.keys(add.inputSchema.properties ?? {}).sort()).toEqual([
      'category',
      'content',
      'importance',
      'service',
    ]);
    const reinforce = tools.find((t) => t.name === 'memory_reinforce')!;
    expect(Object.keys(reinforce.inputSchema.properties ?? {}).sort()).toEqual([
      'content',
      'new_evidence',
    ]);
  });

  it('memory_add stores through the memory service: source tool, category inferred, interactive caller', async () => {
    const r = await mcp.call('memory_add', {
      content: 'Takes 60s to start after a restart',
      service: 'jellyfin',
    });
    expect(r.isError).toBeFalsy();
    expect(r.text).toMatch(/^Stored memory #1 \(category timing inferred\)/);
    expect(r.text).toContain('#1 [timing:jellyfin] Takes 60s to start after a restart');
    expect(data(r)).toMatchObject({ action: 'created', memory: { id: 1, importance: 'normal' } });
    expect(stores.memories.get(1)).toMatchObject({
      service: 'jellyfin',
      category: 'timing',
      source: 'tool',
      sessionId: null,
      tier: 0,
      confidence: 0.7,
    });
    expect(stores.memories.get(1)!.sourceRef).toBe('memory_add');
  });

  it('memory_add of a near-duplicate reinforces the existing memory and says so, with the match', async () => {
    await mcp.call('memory_add', {
      content: 'Takes 60s to start after a restart',
      service: 'jellyfin',
      category: 'timing',
    });
    // No service given: the one known service the text names is taken.
    const r = await mcp.call('memory_add', {
      content: 'jellyfin takes 60s to start after a restart',
    });
    expect(r.text).toMatch(/^Already known: reinforced memory #1 instead of adding a duplicate/);
    expect(data(r)).toMatchObject({
      action: 'reinforced',
      memory: { id: 1, confidence: 0.8 },
      match: { id: 1, measure: 'lexical' },
      inferred: { service: true, category: true },
    });
    expect(stores.memories.list({ status: 'all' })).toHaveLength(1);
    expect(stores.memories.history(1).map((h) => [h.action, h.source])).toEqual([
      ['created', 'tool'],
      ['reinforced', 'tool'],
    ]);
  });

  it('memory_add of a different value supersedes; core importance pins the memory', async () => {
    await mcp.call('memory_add', {
      content: 'Listens on port 8096',
      service: 'jellyfin',
      category: 'behavior',
    });
    const r = await mcp.call('memory_add', {
      content: 'Listens on port 8097',
      service: 'jellyfin',
      category: 'behavior',
      importance: 'core',
    });
    expect(data(r)).toMatchObject({ action: 'superseded', replaced: { id: 1 } });
    expect(r.text).toContain('It supersedes memory #1, which said "Listens on port 8096"');
    expect(stores.memories.get(1)).toMatchObject({ active: false, supersededBy: 2 });
    expect(stores.memories.get(2)).toMatchObject({ importance: 'core', pinned: true });
  });

  it('memory_query: notes and knowledge merged by score, each memory with score, confidence, importance, last reinforced and provenance; reads are counted', async () => {
    await mcp.call('memory_add', {
      content: 'Takes 60s to start after a restart',
      service: 'jellyfin',
    });
    await mcp.call('memory_add', { content: 'Nightly backup runs at 02:00', service: 'restic' });
    const r = await mcp.call('memory_query', { query: 'jellyfin start time after restart' });
    expect(r.isError).toBeFalsy();
    const results = data(r).results!;
    expect(results.map((x) => x.kind)).toContain('service');
    const memory = results.find((x) => x.kind === 'memory')!;
    expect(memory).toMatchObject({ id: 1, importance: 'normal', confidence: 0.7 });
    expect(results.some((x) => x.id === 2)).toBe(false);
    expect(r.text).toMatch(
      /#1 \[timing:jellyfin\] Takes 60s to start after a restart\n {3}score \d\.\d\d · confidence 0\.7 · importance normal · last reinforced \d{4}-\d\d-\d\d \d\d:\d\d UTC \(just now\) · from a memory tool call \(interactive\)/,
    );
    expect(r.text).toContain('service jellyfin: media server');
    expect(stores.memories.get(1)).toMatchObject({ accessCount: 1 });
    expect(stores.memories.get(1)!.lastAccessedAt).not.toBeNull();
    expect(stores.memories.get(2)!.accessCount).toBe(0);

    const notes = await mcp.call('memory_query', {
      query: 'jellyfin start',
      scope: 'notes',
      limit: 1,
    });
    expect(data(notes).results!.map((x) => x.kind)).toEqual(['memory']);
    expect(stores.memories.get(1)!.accessCount).toBe(2);

    const none = await mcp.call('memory_query', { query: 'kubernetes ingress', scope: 'notes' });
    expect(none.text).toBe('Nothing in memory matches "kubernetes ingress".');
  });

  it('memory_verify answers each branch: confirmed, related, conflict and new, listing the matches with their sources', async () => {
    await mcp.call('memory_add', {
      content: 'Takes 60s to start after a restart',
      service: 'jellyfin',
    });
    const confirmed = await mcp.call('memory_verify', {
      claim: 'jellyfin takes 60s to start after a restart',
    });
    expect(data(confirmed)).toMatchObject({
      status: 'confirmed',
      service: 'jellyfin',
      thresholds: { duplicate: 0.5, related: 0.3 },
      matches: [{ id: 1, measure: 'lexical', source: 'tool' }],
    });
    expect(confirmed.text).toMatch(/^CONFIRMED: memory already says this/);
    expect(confirmed.text).toContain('from a memory tool call (interactive)');

    const conflict = await mcp.call('memory_verify', {
      claim: 'jellyfin takes 5 minutes to start after a restart',
    });
    expect(data(conflict)).toMatchObject({
      status: 'conflict',
      matches: [{ id: 1, contradiction: { kind: 'duration', old: '60s', new: '5 minutes' } }],
    });
    expect(conflict.text).toMatch(/^CONFLICT: a memory states a different value/);

    const related = await mcp.call('memory_verify', {
      claim: 'jellyfin takes long to start on a cold cache',
    });
    expect(data(related)).toMatchObject({ status: 'related', matches: [{ id: 1 }] });
    // Close in words, but it states a value the memory does not hold: not confirmed.
    const more = await mcp.call('memory_verify', {
      claim: 'jellyfin takes 60s to start after a restart, on port 8096',
    });
    expect(data(more)).toMatchObject({ status: 'related', matches: [{ id: 1 }] });
    expect(related.text).toMatch(/^RELATED: memory knows the topic but does not say this/);

    // Another fact of the service closer to the claim than the memory that says it: still
    // confirmed, by the memory that says it; a count of another thing is no conflict.
    await mcp.call('memory_add', {
      content: 'when it runs transcodes jellyfin lists 0 libraries at once',
      service: 'jellyfin',
    });
    await mcp.call('memory_add', {
      content: 'jellyfin runs at most 2 transcodes at once',
      service: 'jellyfin',
    });
    const counted = await mcp.call('memory_verify', {
      claim: 'jellyfin runs at most 2 transcodes at once and queues the rest',
    });
    expect(data(counted)).toMatchObject({ status: 'confirmed', matches: [{ id: 3 }, { id: 2 }] });
    expect(data(counted).matches![1]).not.toHaveProperty('contradiction');

    const fresh = await mcp.call('memory_verify', { claim: 'postgres vacuum runs weekly' });
    expect(data(fresh)).toMatchObject({ status: 'new', matches: [] });
    expect(fresh.text).toBe('NEW: nothing in memory is close to this claim (all below 0.3).');

    // Nothing close, but about a service memory knows: it knows the topic, not this.
    const topic = await mcp.call('memory_verify', { claim: 'jellyfin listens on 8920 for https' });
    expect(data(topic)).toMatchObject({ status: 'related', service: 'jellyfin', matches: [] });
    expect(topic.text).toBe(
      'RELATED: memory knows jellyfin but nothing it says is close to this claim (all below 0.3).',
    );
  });

  it('memory_reinforce adds the evidence and the session to the history, raises confidence and importance, and suggests core at 0.8', async () => {
    await mcp.call('memory_add', {
      content: 'Needs the NFS share mounted before it starts',
      service: 'jellyfin',
      category: 'dependency',
      importance: 'high',
    });
    const r = await mcp.call('memory_reinforce', {
      content: 'jellyfin needs the NFS share mounted before it starts',
      new_evidence: 'systemctl status showed it waiting on mnt-media.mount',
    });
    expect(r.isError).toBeFalsy();
    expect(data(r)).toMatchObject({
      action: 'reinforced',
      memory: { id: 1, confidence: 0.8, importance: 'high', importance_value: 0.8 },
      confidence: { before: 0.7, after: 0.8 },
      importance: { before: 0.7, after: 0.8 },
      suggest_core: true,
    });
    expect(r.text).toMatch(
      /^Reinforced memory #1 \(word overlap \d\.\d\d\): confidence 0\.7 -> 0\.8, importance 0\.7 -> 0\.8/,
    );
    expect(r.text).toContain('consider promoting it to core');
    expect(stores.memories.history(1).at(-1)).toMatchObject({
      action: 'reinforced',
      source: 'tool',
      evidence: 'systemctl status showed it waiting on mnt-media.mount',
      oldConfidence: 0.7,
      newConfidence: 0.8,
    });
    expect(stores.memories.get(1)!.accessCount).toBe(1);

    // The suggestion is taken by saying it again as core: the memory is promoted and pinned.
    const promoted = await mcp.call('memory_add', {
      content: 'Needs the NFS share mounted before it starts',
      service: 'jellyfin',
      importance: 'core',
    });
    expect(data(promoted)).toMatchObject({ action: 'reinforced', memory: { importance: 'core' } });
    expect(stores.memories.get(1)).toMatchObject({ importance: 'core', pinned: true });

    const none = await mcp.call('memory_reinforce', { content: 'Grafana dashboards load slowly' });
    expect(data(none)).toMatchObject({ action: 'no_match' });
    expect(none.text).toMatch(
      /^No matching memory to reinforce\..* Use memory_add to store it\.$/s,
    );
  });

  it('archive and restore from the CLI show in the archive scope with the reason; a superseded memory is there too', async () => {
    await mcp.call('memory_add', {
      content: 'Backups of the media library run nightly',
      service: 'restic',
      category: 'maintenance',
    });
    await mcp.call('memory_add', { content: 'Listens on port 8096', service: 'jellyfin' });
    await mcp.call('memory_add', { content: 'Listens on port 8097', service: 'jellyfin' });
    const cli = cliIn(mcp.dataDir, systemClock);
    const archived = await cli.run([
      'memories',
      'archive',
      '1',
      '--reason',
      'the library moved to the NAS',
    ]);
    expect(archived).toMatchObject({
      code: 0,
      stdout: 'memory 1 archived: the library moved to the NAS\n',
    });

    const notes = await mcp.call('memory_query', {
      query: 'media library backups',
      scope: 'notes',
    });
    expect(data(notes).results).toEqual([]);
    const archive = await mcp.call('memory_query', {
      query: 'media library backups',
      scope: 'archive',
    });
    expect(data(archive).results).toMatchObject([
      { id: 1, archive_reason: 'the library moved to the NAS' },
    ]);
    expect(archive.text).toContain('inactive since');
    expect(archive.text).toContain(': the library moved to the NAS');
    const superseded = await mcp.call('memory_query', {
      query: 'jellyfin port',
      scope: 'archive',
    });
    expect(data(superseded).results).toMatchObject([
      { id: 2, inactive_reason: 'superseded by memory #3, which says otherwise' },
    ]);

    expect(await cli.run(['memories', 'restore', '1'])).toMatchObject({
      code: 0,
      stdout: 'memory 1 restored: active (confidence 0.7)\n',
    });
    const back = await mcp.call('memory_query', { query: 'media library backups', scope: 'notes' });
    expect(data(back).results).toMatchObject([{ id: 1, active: true, archived_at: null }]);
    expect(stores.memories.history(1).map((h) => [h.action, h.evidence])).toEqual([
      ['created', null],
      ['archived', 'the library moved to the NAS'],
      ['restored', null],
    ]);
  });

  it('answers a bad argument with a tool error naming the field, and keeps serving', async () => {
    const missing = await mcp.call('memory_add', { importance: 'urgent' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('at content');
    expect(missing.text).toContain('expected one of low, normal, high, core at importance');
    const limit = await mcp.call('memory_query', { query: 'x', limit: 99 });
    expect(limit.isError).toBe(true);
    expect(limit.text).toContain('expected a whole number from 1 to 20 at limit');
    const scope = await mcp.call('memory_query', { query: 'x', scope: 'everything' });
    expect(scope.text).toContain('expected one of notes, archive, knowledge, all at scope');
    const control = await mcp.call('memory_add', { content: 'bad\u0007text' });
    expect(control).toMatchObject({ isError: true });
    expect(control.text).toBe('content: contains the control character U+0007 at position 3');
    const long = await mcp.call('memory_reinforce', {
      content: 'x',
      new_evidence: 'e'.repeat(2001),
    });
    expect(long.text).toContain('No matching memory');
    await mcp.call('memory_add', { content: 'Takes 60s to start', service: 'jellyfin' });
    const evidence = await mcp.call('memory_reinforce', {
      content: 'Takes 60s to start',
      new_evidence: 'e'.repeat(2001),
    });
    expect(evidence).toMatchObject({ isError: true });
    expect(evidence.text).toBe('new_evidence: is 2001 characters, over the limit of 2000');
    const service = await mcp.call('memory_add', { content: 'ok', service: 'bad name!' });
    expect(service).toMatchObject({ isError: true });
    expect(service.text).toMatch(/^service: /);
    const empty = await mcp.call('memory_verify', { claim: '   ' });
    expect(empty.text).toBe('claim: must not be empty');
    // Nothing was stored by the bad calls, and the server still answers.
    expect(stores.memories.list({ status: 'all' }).map((m) => m.observation)).toEqual([
      'Takes 60s to start',
    ]);
    expect((await mcp.client.listTools()).tools).toHaveLength(4);
    expect(mcp.stderr()).not.toContain('memory tool failed');
  });
});

describe('inside a session watchkeeper runs', () => {
  it('writes with the session id and tier from the environment, like a marker', async () => {
    const sessionId = stores.sessions.start({ trigger: 'manual', tier: 2, startedAt: Date.now() });
    const inSession = await connectMcp({
      dataDir: mcp.dataDir,
      env: { WATCHKEEPER_SESSION_ID: String(sessionId), WATCHKEEPER_TIER: '2' },
    });
    try {
      const r = await inSession.call('memory_add', {
        content: 'Takes 60s to start after a restart',
        service: 'jellyfin',
      });
      expect(r.text).toContain(`from a memory tool call in session #${sessionId} (tier 2)`);
      expect(stores.memories.get(1)).toMatchObject({ sessionId, tier: 2, source: 'tool' });
      // A new memory from a session is announced like one from a marker.
      expect(stores.events.list({ sessionId }).map((e) => e.message)).toEqual([
        'New memory recorded: [timing:jellyfin] Takes 60s to start after a restart',
      ]);
    } finally {
      await inSession.close();
    }
  });

  it('writes as an interactive caller when the session id names no session', async () => {
    const other = await connectMcp({
      dataDir: mcp.dataDir,
      env: { WATCHKEEPER_SESSION_ID: '999', WATCHKEEPER_TIER: '1' },
    });
    try {
      await other.call('memory_add', { content: 'Retry DNS once', service: 'pihole' });
      expect(stores.memories.get(1)).toMatchObject({ sessionId: null, tier: 0 });
      expect(other.stderr()).toContain('WATCHKEEPER_SESSION_ID names no session');
    } finally {
      await other.close();
    }
  });
});
