/**
 * End to end: one tier-1 session of the real Claude CLI over a repos folder of three (a manifest
 * with a guarded rule, a README only, a broken one). The model is told the rules and the checks
 * within the tier's budget, reads a check and reports it, has `ansible-playbook` refused by the
 * guard citing the manifest, runs with the repository's MCP server, and the broken repository is
 * a warning while the session completes. Needs dist/ (the hook and the memory tools).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/log.js';
import type { SimBlock } from '../../src/sim/messages-api.js';
import { runbooksPage } from '../../src/web/runbooks-data.js';
import { logged } from '../helpers/log-lines.js';
import { bash, type RealCli, startRealCli, text } from '../helpers/real-cli.js';
import { opsRepos, TIER_RULE, TIER_RULE_LINE } from '../runbooks/ops-repos-fixture.js';
import type { ReposFolder } from '../runbooks/repos-fixture.js';

let cli: RealCli | undefined;
let repos: ReposFolder;
afterEach(async () => {
  await cli?.close();
  cli = undefined;
  repos.remove();
});

const BUDGET = 1500;

/** The `## Runbooks` section of a system prompt, up to the next section. */
const section = (system: string) => {
  const from = system.indexOf('## Runbooks');
  const to = system.indexOf('\n\n## ', from + 1);
  return from < 0 ? '' : system.slice(from, to < 0 ? undefined : to);
};

describe('a session over a repos folder, with the real CLI', () => {
  it('is told the rules and checks, reports a check, is refused a tier-3 command, gets the MCP server', async () => {
    repos = opsRepos();
    const infra = join(repos.dir, 'infra');
    const check = join(infra, '.claude-ops/checks/backups.md');
    const log: string[] = [];
    let system = '';
    const results: { content: string; isError: boolean }[][] = [];
    cli = await startRealCli(
      (r): SimBlock[] => {
        if (r.turn === 0) {
          system = r.system;
          return [
            text('Reading the backups check.'),
            { type: 'tool_use', name: 'Read', input: { file_path: check } },
          ];
        }
        results.push(r.toolResults);
        if (r.turn === 1) return [bash(`cd ${infra} && ansible-playbook site.yml`, 'redeploy')];
        return [text('[HEALTH:degraded:backups] no snapshot in the last 30 hours')];
      },
      {
        env: {
          WATCHKEEPER_REPOS_DIR: repos.dir,
          WATCHKEEPER_TIER1_RUNBOOK_BUDGET: String(BUDGET),
          WATCHKEEPER_EMBEDDINGS: 'off',
        },
        log: createLogger('warn', (line) => log.push(line)),
      },
    );
    const h = cli.harness;
    const out = await h.runSession({
      trigger: 'manual',
      tier: 1,
      prompt: 'check the backups',
      parentSessionId: null,
      handoff: null,
      alert: null,
    });
    // (e) The broken repository does not stop the session.
    expect(h.stores.sessions.get(out.sessionId)!.status).toBe('completed');

    // (a) The model's system prompt holds the rules and the check index, within the budget.
    const told = section(system);
    expect(told.length).toBeGreaterThan(0);
    expect(told.length).toBeLessThanOrEqual(BUDGET);
    expect(told).toContain(
      `Rules (follow them): Check the inventory before any change; ${TIER_RULE}`,
    );
    expect(told).toContain(`- backups: The restic backup of the NAS, every run. (${check})`);
    expect(told).toMatch(/\(\d+ more left out for room: see the folders of the paths above\.\)/);
    expect(h.stores.sessionRecords.systemPrompt(out.sessionId)).toContain(told);

    // (b) The check was read, and its report is the check's last outcome on the Runbooks page.
    expect(results[0]).toEqual([
      { isError: false, content: expect.stringContaining('restic snapshots --latest 1') },
    ]);
    const page = await runbooksPage(h);
    const checks = page.repositories.find((r) => r.name === 'infra')!.checks;
    expect(checks.find((c) => c.name === 'backups')!.outcome).toMatchObject({
      status: 'degraded',
      detail: 'no snapshot in the last 30 hours',
      sessionId: out.sessionId,
    });

    // (c) The guard refused the command, quoting the rule and where it is written.
    expect(results[1]).toHaveLength(1);
    expect(results[1]![0]!.isError).toBe(true);
    expect(results[1]![0]!.content).toContain(
      `refused: "${TIER_RULE}" (${infra}/CLAUDE-OPS.md line ${TIER_RULE_LINE}); this session is tier 1`,
    );

    // (d) The CLI was launched with the repository's MCP server beside the memory tools.
    const stream = readFileSync(join(h.dataDir, 'tee', `${out.sessionId}.ndjson`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const init = stream.find((l) => l.type === 'system' && l.subtype === 'init')!;
    expect((init.mcp_servers as { name: string }[]).map((s) => s.name).sort()).toEqual([
      'docker',
      'watchkeeper',
    ]);

    // (e) The broken manifest and mcp.json are warnings in the log and on the Runbooks page.
    const broken = join(repos.dir, 'broken');
    expect(logged(log.join('\n'), /^runbooks: some files were not used/)).toBe(true);
    expect(log.join('\n')).toContain(`${broken}/CLAUDE-OPS.md:1: no title`);
    expect(page.repositories.find((r) => r.name === 'broken')!.warnings).toEqual([
      expect.stringContaining(`${broken}/CLAUDE-OPS.md:1: no title`),
      expect.stringContaining(`${broken}/CLAUDE-OPS.md:1: no "## Kind" section`),
      expect.stringContaining(`${broken}/.claude-ops/mcp.json:2: not valid JSON`),
    ]);
  }, 120_000);
});
