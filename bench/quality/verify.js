/**
 * memory_verify as an agent calls it: the MCP SDK's client, over stdio, to `watchkeeper mcp` on
 * the store the ops memories were imported into. Each claim of bench/data/verify-claims.json
 * gets the tool's verdict (its structured `status`); agreement is the share equal to the verdict
 * a careful reader gives, and "confirmed wrongly" counts the claims confirmed that no memory says.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BIN = fileURLToPath(new URL('../../bin/watchkeeper.js', import.meta.url));
const CLAIMS = new URL('../data/verify-claims.json', import.meta.url);

export const loadClaims = () => JSON.parse(readFileSync(CLAIMS, 'utf8')).claims;

export async function verifyClaims(t, path, env, claims) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'watchkeeper-bench', version: '1.0.0' });
  await client.connect(transport);
  try {
    for (const c of claims) {
      const result = await client.callTool({
        name: 'memory_verify',
        arguments: { claim: c.claim },
      });
      const status = result.structuredContent?.status;
      if (result.isError || !status)
        throw new Error(`memory_verify failed: ${JSON.stringify(result)}`);
      t.add(path, c.split, 'verify', {
        right: status === c.expect ? 1 : 0,
        wronglyConfirmed: status === 'confirmed' && c.expect !== 'confirmed' ? 1 : 0,
        [`as-${status}`]: 1,
      });
    }
  } finally {
    await client.close();
  }
}
