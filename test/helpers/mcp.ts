import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(REPO, 'bin', 'watchkeeper.js');

export interface McpSession {
  client: Client;
  dataDir: string;
  /** Everything the server wrote to stderr. */
  stderr(): string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult & { text: string }>;
  close(): Promise<void>;
}

/**
 * The MCP SDK's own client, connected over stdio to a server started as `command args` (by
 * default `node bin/watchkeeper.js mcp`, which needs dist/) on a temp data folder.
 */
export async function connectMcp(
  opts: {
    dataDir?: string;
    env?: Record<string, string>;
    command?: string;
    args?: string[];
    cwd?: string;
  } = {},
): Promise<McpSession> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'watchkeeper-mcp-'));
  const transport = new StdioClientTransport({
    command: opts.command ?? process.execPath,
    args: opts.args ?? [BIN, 'mcp'],
    cwd: opts.cwd ?? REPO,
    env: { WATCHKEEPER_DATA_DIR: dataDir, WATCHKEEPER_EMBEDDINGS: 'off', ...opts.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'watchkeeper-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    dataDir,
    stderr: () => stderr,
    async call(name, args) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { ...result, text };
    },
    async close() {
      await client.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
