/**
 * The manifests' checkable rules hold: the guard refuses a command family below its tier, a
 * write into a read-only repository and a playbook read below its tier, quoting the rule and
 * its file and line. Calls go through the hook's own path (rules, guard walk, refusal).
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { rulesFor, runbookRefusal, toolIntents } from '../../src/runner/pre-tool-use.js';
import type { ReposFolder } from './repos-fixture.js';
import { DOCS_MANIFEST, rulesRepos } from './rules-fixture.js';

let repos: ReposFolder;
beforeEach(() => {
  repos = rulesRepos();
});
afterEach(() => repos.remove());

async function decide(payload: Record<string, unknown>, tier: number | null) {
  const full = { cwd: '/tmp', ...payload };
  const rules = await rulesFor(full, { reposDir: repos.dir, tier, fallbackCwd: '/' });
  if (!rules) return null;
  await toolIntents(full, rules.watch);
  return runbookRefusal(full, rules.ctx, rules.watch);
}
const bash = (command: string, tier: number | null, cwd = '/tmp') =>
  decide({ tool_name: 'Bash', tool_input: { command }, cwd }, tier);

describe('a command family with a minimum tier', () => {
  it('is refused below it, quoting the rule and where it is written', async () => {
    const infra = join(repos.dir, 'infra');
    const reason = await bash('ansible-playbook site.yml', 1, infra);
    expect(reason).toBe(
      `watchkeeper: refused: "\`ansible-playbook\` requires tier 3" (${infra}/CLAUDE-OPS.md line 12); ` +
        'this session is tier 1. `ansible-playbook site.yml` runs `ansible-playbook`. Hand it to ' +
        'a higher tier or report that a human is needed.',
    );
    expect(await bash('ansible-playbook site.yml', 3, infra)).toBeNull();
  });

  it('is found behind wrappers, inside shell strings and ssh, with options between its words', async () => {
    for (const command of [
      'sudo -u deploy /usr/bin/ansible-playbook -i hosts site.yml',
      `bash -c 'cd /srv && ansible-playbook site.yml'`,
      'ssh nas "helm --namespace media upgrade jellyfin ./chart"',
      'echo go && helm rollback web 3',
      'CMD=ansible-playbook; $CMD site.yml',
    ]) {
      expect(await bash(command, 2), command).toMatch(/^watchkeeper: refused: ".*require/);
    }
  });

  it('leaves other commands and other subcommands alone', async () => {
    for (const command of ['helm list -A', 'ansible all -m ping', 'echo ansible-playbook']) {
      expect(await bash(command, 1), command).toBeNull();
    }
  });

  it('holds when the session does not say its tier', async () => {
    expect(await bash('helm upgrade web ./chart', null)).toContain(
      "this session's tier is unknown",
    );
  });
});

describe('a read-only repository', () => {
  const docs = () => join(repos.dir, 'docs');

  it('refuses Edit, Write and NotebookEdit inside it, and nowhere else', async () => {
    const rule = `"Read-only: never modify files here" (${docs()}/CLAUDE-OPS.md line 11)`;
    for (const tool_name of ['Edit', 'Write', 'MultiEdit']) {
      const reason = await decide(
        { tool_name, tool_input: { file_path: `${docs()}/notes.md` } },
        3,
      );
      expect(reason).toBe(
        `watchkeeper: refused: ${rule}: ${tool_name} writes \`${docs()}/notes.md\`, which could ` +
          `be inside ${docs()}. Report the change you would make instead.`,
      );
    }
    const notebook = { tool_name: 'NotebookEdit', tool_input: { notebook_path: 'a.ipynb' } };
    expect(await decide({ ...notebook, cwd: docs() }, 3)).toContain(rule);
    expect(await decide({ ...notebook, cwd: '/tmp' }, 3)).toBeNull();
    const elsewhere = { tool_name: 'Write', tool_input: { file_path: `${repos.dir}/infra/x.md` } };
    expect(await decide(elsewhere, 3)).toBeNull();
  });

  it('refuses shell writes into it, relative ones after cd, and unresolved ones that could land there', async () => {
    for (const command of [
      `echo x > ${docs()}/notes.md`,
      `date >> ${docs()}/log`,
      `echo x | sudo tee ${docs()}/notes.md`,
      `rm -rf ${docs()}`,
      `mv ${docs()}/notes.md /tmp/`,
      `cp /etc/hosts ${docs()}/`,
      `sed -i 's/a/b/' ${docs()}/notes.md`,
      `cd ${docs()} && git commit -am wip`,
      `git -C ${docs()} push`,
      `sh -c 'echo x > ${docs()}/y'`,
      `cd ${docs()} && echo x > y`,
      `rm ${repos.dir}/*/notes.md`,
    ]) {
      expect(await bash(command, 3), command).toContain('never modify files here');
    }
  });

  it('lets reads and writes elsewhere run', async () => {
    for (const command of [
      `cat ${docs()}/notes.md`,
      `grep -r x ${docs()} > /tmp/found`,
      `cp ${docs()}/notes.md /tmp/`,
      `sed 's/a/b/' ${docs()}/notes.md`,
      `cd ${docs()} && git log && git status 2>&1`,
      'echo x > notes.md',
    ]) {
      expect(await bash(command, 3), command).toBeNull();
    }
  });

  it('holds for the checkout a repository links to', async () => {
    const checkout = mkdtempSync(join(tmpdir(), 'watchkeeper-checkout-'));
    try {
      writeFileSync(join(checkout, 'CLAUDE-OPS.md'), DOCS_MANIFEST);
      symlinkSync(checkout, join(repos.dir, 'wiki'));
      expect(await bash(`echo x > ${checkout}/notes.md`, 3)).toContain(
        `(${repos.dir}/wiki/CLAUDE-OPS.md line 11)`,
      );
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});

describe("a playbook's minimum tier", () => {
  it('refuses reading it below the tier, citing the rule that raises it', async () => {
    const path = join(repos.dir, 'infra/.claude-ops/playbooks/redeploy.md');
    const read = (tier: number) =>
      decide({ tool_name: 'Read', tool_input: { file_path: path } }, tier);
    expect(await read(2)).toBe(
      `watchkeeper: refused: the playbook "redeploy" requires tier 3 ` +
        `(${repos.dir}/infra/CLAUDE-OPS.md line 14); this session is tier 2. Hand it to a ` +
        'higher tier or report that a human is needed.',
    );
    expect(await read(3)).toBeNull();
    expect(await bash(`cat ${path}`, 1)).toContain('the playbook "redeploy" requires tier 3');
  });

  it("holds for the built-in library's playbooks", async () => {
    const reason = await decide(
      {
        tool_name: 'Read',
        tool_input: { file_path: 'playbooks/restart-container.md' },
        cwd: join(import.meta.dirname, '../../runbooks'),
      },
      1,
    );
    expect(reason).toMatch(
      /the playbook "restart-container" requires tier 3 \(.*restart-container\.md line 3\)/,
    );
  });
});
