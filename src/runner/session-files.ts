/**
 * The CLI's large inputs, handed over as files instead of arguments: the appended system prompt
 * (memories, cooldown state, handoff, alert), the settings that register the hook, and the MCP
 * config of the memory tools' server (it holds the embeddings key when one is set). exec
 * refuses one argument over 128 KiB (E2BIG) or one holding a NUL, and memories and alerts can
 * hold either. Each session gets a private folder (0700, files 0600: memories and alert text are
 * not for other local users), removed when the session ends.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SessionFiles {
  systemPromptFile: string;
  settingsFile: string;
  /** The memory tools' `--mcp-config` file; null when none was given. */
  mcpConfigFile: string | null;
  /** Removes the folder; never throws (a leftover is cleared with the next session's). */
  remove(): void;
}

/** The folder under the data folder that holds every running session's input files. */
export function sessionFilesRoot(dataDir: string): string {
  return join(dataDir, 'session-inputs');
}

export function writeSessionFiles(
  root: string,
  sessionId: number,
  content: {
    systemPrompt: string;
    settings: Record<string, unknown>;
    mcpConfig?: Record<string, unknown>;
  },
): SessionFiles {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const dir = join(root, String(sessionId));
  // A folder left by a killed process under a reused id is not this session's.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  const systemPromptFile = join(dir, 'system-prompt.md');
  const settingsFile = join(dir, 'settings.json');
  writeFileSync(systemPromptFile, content.systemPrompt, { mode: 0o600, flag: 'wx' });
  writeFileSync(settingsFile, JSON.stringify(content.settings), { mode: 0o600, flag: 'wx' });
  const mcpConfigFile = content.mcpConfig ? join(dir, 'mcp.json') : null;
  if (mcpConfigFile) {
    writeFileSync(mcpConfigFile, JSON.stringify(content.mcpConfig), { mode: 0o600, flag: 'wx' });
  }
  return {
    systemPromptFile,
    settingsFile,
    mcpConfigFile,
    remove: () => {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
      } catch {
        // Left for the next runner start to clear; the session's outcome does not depend on it.
      }
    },
  };
}

/** Folders of sessions that are no longer running (a killed predecessor's), removed. */
export function clearSessionFiles(root: string): void {
  rmSync(root, { recursive: true, force: true, maxRetries: 2 });
}
