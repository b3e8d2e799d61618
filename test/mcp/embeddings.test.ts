/**
 * The memory tools with the local embedding model: verify and reinforce compare by cosine with
 * the model's own thresholds (use-lite: duplicate 0.75, related 0.6), the same measure dedup and
 * supersession use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { connectMcp, type McpSession } from '../helpers/mcp.js';

let mcp: McpSession;
beforeAll(async () => {
  mcp = await connectMcp({ env: { WATCHKEEPER_EMBEDDINGS: 'local' } });
  await mcp.call('memory_add', {
    content: 'Takes about 60 seconds to start after a restart',
    service: 'jellyfin',
    category: 'timing',
  });
});
afterAll(() => mcp.close());

const data = (r: { structuredContent?: unknown }) =>
  r.structuredContent as { status?: string; measure?: string; matches?: { measure: string }[] };

describe('memory tools by meaning', () => {
  it('memory_verify: the same fact reworded is confirmed by cosine; another duration conflicts', async () => {
    const confirmed = await mcp.call('memory_verify', {
      claim: 'Takes about 60 seconds to start after a restart',
    });
    expect(data(confirmed)).toMatchObject({
      status: 'confirmed',
      thresholds: { duplicate: 0.75, related: 0.6 },
    });
    expect(data(confirmed).matches![0]!.measure).toBe('cosine');
    const conflict = await mcp.call('memory_verify', {
      claim: 'Takes about 5 minutes to start after a restart',
    });
    expect(data(conflict).status).toBe('conflict');
    const fresh = await mcp.call('memory_verify', {
      claim: 'The certificate renews every 90 days',
    });
    expect(data(fresh).status).toBe('new');
  });

  it('memory_verify: confirmed by the memory that says it, though another of the service is closer', async () => {
    const add = (content: string) =>
      mcp.call('memory_add', { content, service: 'qbittorrent', category: 'behavior' });
    await add(
      'after an unclean shutdown qbittorrent rechecks resume data for 2-4 minutes; the WebUI answers but lists 0 torrents until then',
    );
    await add('at most 5 downloads are active; the rest sit as "queued", which is not a fault');
    const r = await mcp.call('memory_verify', {
      claim: 'qbittorrent runs at most 5 downloads at once and queues the rest',
    });
    const answer = r.structuredContent as {
      status: string;
      matches: { observation: string; similarity: number }[];
    };
    expect(answer.status).toBe('confirmed');
    expect(answer.matches[0]!.observation).toMatch(/^at most 5 downloads are active/);
    // The closest memory of the service states another fact (what the WebUI lists).
    expect(answer.matches[1]!.similarity).toBeGreaterThan(answer.matches[0]!.similarity);
  });

  it('memory_verify: related when the words are close though the model puts the meaning under "related"', async () => {
    await mcp.call('memory_add', {
      content: 'jellyfin reads the media library over NFS from the nas',
      service: 'jellyfin',
      category: 'dependency',
    });
    // Cosine 0.57 (under 0.6), word overlap 0.5.
    const r = await mcp.call('memory_verify', {
      claim: 'the nas library share is mounted by jellyfin',
    });
    expect(r.structuredContent).toMatchObject({
      status: 'related',
      matches: [{ observation: 'jellyfin reads the media library over NFS from the nas' }],
    });
  });

  it('memory_reinforce matches by cosine at 0.75 or more', async () => {
    const r = await mcp.call('memory_reinforce', {
      content: 'Takes about 60 seconds to start after a restart',
      new_evidence: 'timed the restart: 58 s',
    });
    expect(data(r)).toMatchObject({ action: 'reinforced', measure: 'cosine' });
    const none = await mcp.call('memory_reinforce', { content: 'Uses port 8096 for HTTP' });
    expect(none.text).toMatch(/^No matching memory to reinforce/);
  });
});
