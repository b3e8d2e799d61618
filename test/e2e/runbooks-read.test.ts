/**
 * End to end: the real Claude CLI, unattended, reads a repository's check and a built-in playbook
 * at the paths its runbooks section gives, both outside its working directory. No --add-dir is
 * needed for reading, and none is given: it would also open those folders to Write and Edit.
 */
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { LIBRARY_DIR } from '../../src/runbooks/index.js';
import type { SimBlock } from '../../src/sim/messages-api.js';
import { type RealCli, startRealCli, text } from '../helpers/real-cli.js';
import { reposFolder, type ReposFolder } from '../runbooks/repos-fixture.js';

let cli: RealCli | undefined;
let repos: ReposFolder;
afterEach(async () => {
  await cli?.close();
  cli = undefined;
  repos.remove();
});

const read = (path: string): SimBlock => ({
  type: 'tool_use',
  name: 'Read',
  input: { file_path: path },
});

describe('the runbooks, read by the real CLI', () => {
  it('reads documents in the repos folder and the built-in library', async () => {
    repos = reposFolder();
    const check = join(repos.dir, 'infra/.claude-ops/checks/backups.md');
    const playbook = join(LIBRARY_DIR, 'playbooks/restart-container.md');
    let results: { content: string; isError: boolean }[] = [];
    let system = '';
    cli = await startRealCli(
      (r) => {
        if (r.turn === 0) {
          system = r.system;
          return [read(check), read(playbook)];
        }
        results = r.toolResults;
        return [text('[EVENT:info:nas] backups checked')];
      },
      { env: { WATCHKEEPER_REPOS_DIR: repos.dir } },
    );
    const out = await cli.harness.runSession({
      trigger: 'manual',
      tier: 3,
      prompt: 'check the backups',
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    expect(cli.harness.stores.sessions.get(out.sessionId)!.status).toBe('completed');
    expect(system).toContain(`(${check})`);
    expect(system).toContain(`(${playbook})`);
    expect(results).toHaveLength(2);
    expect(results.map((x) => x.isError)).toEqual([false, false]);
    // The CLI runs the two reads at once: their results come back in either order.
    expect(results.map((x) => x.content)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('restic snapshots --latest 1'),
        expect.stringContaining('[COOLDOWN:restart:service]'),
      ]),
    );
  });
});
