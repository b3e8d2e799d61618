/**
 * `import-mcp-memory` on a memory.jsonl written by the real MCP reference memory server
 * (@modelcontextprotocol/server-memory), driven over stdio by the MCP SDK's client; the import
 * runs with the real local embedding model, so the search below is the one sessions use.
 */
import { appendFileSync, copyFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createGraphStore } from '../../src/db/graph/graph.js';
import { createPortability, fileLines, graphType } from '../../src/portability/index.js';
import { cliIn } from '../helpers/cli.js';
import { type KnowledgeApp, knowledgeApp, localEmbedder } from '../helpers/knowledge.js';
import { connectMcp, type McpSession } from '../helpers/mcp.js';

const require = createRequire(import.meta.url);
const SERVER = join(
  require.resolve('@modelcontextprotocol/server-memory/package.json'),
  '..',
  'dist',
  'index.js',
);

let app: KnowledgeApp | undefined;
let server: McpSession | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  app?.close();
  app = undefined;
});

async function memoryServer(file: string): Promise<McpSession> {
  return connectMcp({ command: process.execPath, args: [SERVER], env: { MEMORY_FILE_PATH: file } });
}

describe('import-mcp-memory', () => {
  it('maps the MCP entity types to the graph types, unknown ones to concept', () => {
    expect(graphType('service')).toBe('technology');
    expect(graphType('Home Server')).toBe('technology');
    expect(graphType('person')).toBe('person');
    expect(graphType('Project')).toBe('project');
    expect(graphType('config file')).toBe('file');
    expect(graphType('mood')).toBe('concept');
  });

  it('imports what the real server wrote: entities, memories, relations; then only what is new', async () => {
    app = knowledgeApp(localEmbedder());
    const file = join(app.dataDir, 'memory.jsonl');
    server = await memoryServer(file);
    await server.call('create_entities', {
      entities: [
        {
          name: 'jellyfin',
          entityType: 'service',
          observations: ['Transcoding stalls when the cache disk is full'],
        },
        {
          name: 'Krz',
          entityType: 'person',
          observations: ['Prefers maintenance windows on Sunday mornings'],
        },
        { name: 'postgres', entityType: 'database', observations: [] },
        {
          name: 'backup plan',
          entityType: 'idea',
          observations: ['Nightly restic runs go to the NAS'],
        },
      ],
    });
    await server.call('add_observations', {
      observations: [
        { entityName: 'jellyfin', contents: ['Needs the GPU passthrough enabled for 4K'] },
        { entityName: 'postgres', contents: ['Vacuum runs nightly at 02:00'] },
      ],
    });
    await server.call('create_relations', {
      relations: [
        { from: 'jellyfin', to: 'postgres', relationType: 'depends_on' },
        { from: 'Krz', to: 'jellyfin', relationType: 'maintains' },
      ],
    });
    expect(readFileSync(file, 'utf8')).toContain('"type":"relation"');
    // A line the server would not have written, and one cut short: counted and skipped.
    const withBad = join(app.dataDir, 'memory-with-bad-lines.jsonl');
    copyFileSync(file, withBad);
    appendFileSync(withBad, '\n{"type":"entity","name":"half"\n{"type":"note","text":"x"}\n');

    const portability = createPortability({ ...app, clock: app.clock });
    const report = await portability.importMcpMemory(fileLines(withBad));
    expect(report.malformed).toBe(2);
    expect(report.entities).toEqual({ created: 4, existing: 0 });
    expect(report.observations).toMatchObject({ created: 5, refused: 0 });
    expect(report.relations).toEqual({ created: 2, skipped: 0, refused: 0 });

    const graph = createGraphStore(app.stores.db);
    const [jellyfin] = await graph.entitiesNamed(['jellyfin']);
    const [postgres] = await graph.entitiesNamed(['postgres']);
    const [krz] = await graph.entitiesNamed(['Krz']);
    expect(jellyfin).toMatchObject({ name: 'Jellyfin', type: 'technology' });
    // A known technology is folded to its one name; the MCP spelling stays an alias.
    expect(postgres).toMatchObject({ name: 'PostgreSQL', type: 'technology' });
    expect(krz).toMatchObject({ name: 'Krz', type: 'person' });
    expect((await graph.entitiesNamed(['backup plan']))[0]).toMatchObject({ type: 'concept' });

    const all = app.stores.memories.list({ status: 'all' });
    expect(all.map((m) => [m.service, m.observation]).sort()).toEqual(
      [
        ['jellyfin', 'Needs the GPU passthrough enabled for 4K'],
        ['jellyfin', 'Transcoding stalls when the cache disk is full'],
        ['postgres', 'Vacuum runs nightly at 02:00'],
        [null, 'Krz: Prefers maintenance windows on Sunday mornings'],
        [null, 'backup plan: Nightly restic runs go to the NAS'],
      ].sort(),
    );
    expect(all.every((m) => m.source === 'import')).toBe(true);
    const krzMemory = all.find((m) => m.observation.startsWith('Krz'))!;
    expect(app.stores.portability.memoriesOfEntity(krz!.id)).toEqual([krzMemory.id]);

    expect(app.stores.portability.entityRelations().map((r) => [r.fromId, r.type, r.toId])).toEqual(
      [
        [jellyfin!.id, 'depends_on', postgres!.id],
        [krz!.id, 'maintains', jellyfin!.id],
      ],
    );

    // Found by the search sessions use, in other words than the observation's.
    const answer = await app.knowledge.search.search(
      'when the cache volume fills up, transcoding stops',
    );
    expect(answer.results[0]?.memory.observation).toBe(
      'Transcoding stalls when the cache disk is full',
    );

    // The user keeps using the server; a re-import brings only what is new.
    await server.call('add_observations', {
      observations: [{ entityName: 'Krz', contents: ['Reads alerts on the phone first'] }],
    });
    await server.call('create_relations', {
      relations: [{ from: 'backup plan', to: 'postgres', relationType: 'covers' }],
    });
    const again = await portability.importMcpMemory(fileLines(file));
    expect(again.entities).toEqual({ created: 0, existing: 4 });
    expect(again.observations).toMatchObject({ created: 1, skipped: 5, reinforced: 0 });
    expect(again.relations).toEqual({ created: 1, skipped: 2, refused: 0 });
    expect(await app.stores.memories.count({ status: 'all' })).toBe(6);
  }, 120_000);

  it('reports a dry run from the CLI and writes nothing', async () => {
    app = knowledgeApp(null);
    const file = join(app.dataDir, 'memory.json');
    appendFileSync(
      file,
      [
        JSON.stringify({
          type: 'entity',
          name: 'caddy',
          entityType: 'service',
          observations: ['Renews certificates on its own'],
        }),
        JSON.stringify({ type: 'relation', from: 'caddy', to: 'nobody', relationType: 'knows' }),
        'not json',
      ].join('\n'),
    );
    const run = await cliIn(app.dataDir, app.clock, { WATCHKEEPER_EMBEDDINGS: 'off' }).run([
      'import-mcp-memory',
      file,
      '--dry-run',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'line 1: would be created observation "caddy: Renews certificates on its own"',
    );
    expect(run.stdout).toContain(
      'line 2: refused relation "caddy -knows-> nobody": no entity named "nobody"',
    );
    expect(run.stdout).toContain('Malformed lines skipped: 1.');
    expect(await app.stores.memories.count({ status: 'all' })).toBe(0);
    expect(await createGraphStore(app.stores.db).entitiesNamed(['caddy'])).toEqual([]);
  });
});
