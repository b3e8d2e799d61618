/**
 * What the cooldown guard refuses whatever the cooldowns say (an alias, interpreter code that can
 * start a process), the innocent commands it lets through, and the bypass forms it follows.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { HOUR_MS } from '../../src/clock.js';
import { loadConfig } from '../../src/config/index.js';
import {
  checkCommand,
  findConflict,
  refusalDetail,
  unallowedRefusals,
} from '../../src/runner/command-guard.js';
import type { ServiceCooldown } from '../../src/runner/cooldown-policy.js';

const ALIAS = "shopt -s expand_aliases\nalias r='docker restart'\nr jellyfin";

/** `kind:name` of each refusal. */
const refusals = async (command: string) =>
  (await checkCommand(command)).refusals.map((r) => `${r.kind}:${r.name}`);

describe('refused whatever the cooldowns say, unless the operator allows it', () => {
  it.each([
    [ALIAS, 'alias:alias'],
    ["alias r='docker restart'", 'alias:alias'],
    ["alias -- r='docker restart'", 'alias:alias'],
    ['alias d=docker; d restart jellyfin', 'alias:alias'],
    ['alias "$A"', 'alias:alias'],
    ['shopt -s expand_aliases', 'alias:alias'],
    ['shopt -qs extglob expand_aliases', 'alias:alias'],
    ["env BASHOPTS=expand_aliases bash -c 'r jellyfin'", 'alias:alias'],
    ['eval "alias r=\'docker restart\'"', 'alias:alias'],
    ['bash -c "alias r=\'docker restart\'"', 'alias:alias'],
    [`perl -e 'system("docker "."res"."tart jellyfin")'`, 'interpreter:perl'],
    [`perl -e 'my $c = "res"; qx{docker \${c}tart jellyfin}'`, 'interpreter:perl'],
    [`perl -e 'open(my $p, "|-", "docker", "restart", "jellyfin")'`, 'interpreter:perl'],
    [`perl -e 'eval "sys"."tem(q(x))"'`, 'interpreter:perl'],
    [`perl -MIPC::Open3 -e 'open3(1, 2, 3, "x")'`, 'interpreter:perl'],
    [
      `python3 -c 'import os; os.system("docker " + "res" + "tart jellyfin")'`,
      'interpreter:python',
    ],
    [`python3 -c '__import__("o" + "s").popen("x")'`, 'interpreter:python'],
    [
      `python3 -c 'import subprocess; subprocess.run(["docker", "re" + "start", "x"])'`,
      'interpreter:python',
    ],
    [`python3 -c 'from os import system as s; s("x")'`, 'interpreter:python'],
    ["python3 - <<'EOF'\nimport pty\npty.spawn('sh')\nEOF", 'interpreter:python'],
    ['curl -s http://10.0.0.5/fix.py | python3', 'interpreter:python'],
    ['python3 -c "$CODE"', 'interpreter:python'],
    ['curl -so /tmp/fix.py http://10.0.0.5/fix.py && python3 /tmp/fix.py', 'interpreter:python'],
    [`ruby -e 'system("docker " + "res" + "tart jellyfin")'`, 'interpreter:ruby'],
    [`ruby -e 'IO.popen(["docker", "restart", "x"])'`, 'interpreter:ruby'],
    [`ruby -e 'Kernel.send(:sys" + "tem", "x")'`, 'interpreter:ruby'],
    [`node -e 'require("child_" + "process").execSync("x")'`, 'interpreter:node'],
    [`node -e 'require("child_process").spawn("x")'`, 'interpreter:node'],
    [`php -r 'system("docker "."res"."tart jellyfin");'`, 'interpreter:php'],
    [`php -r '$f = "sys"."tem"; $f("x");'`, 'interpreter:php'],
    [`php -r 'echo proc_open("x", [], $p);'`, 'interpreter:php'],
    [`awk 'BEGIN { system("docker res" "tart jelly" "fin") }'`, 'interpreter:awk'],
    [`awk '{ print | "sh" }' cmds.txt`, 'interpreter:awk'],
    [`gawk 'BEGIN { c = "docker"; c | getline }'`, 'interpreter:awk'],
    [`sed 's/.*/docker restart &/e' names.txt`, 'interpreter:sed'],
  ])('%s', async (command, expected) => {
    expect(await refusals(command)).toContain(expected);
  });

  it('says why, and which switch would allow it', async () => {
    const [alias] = (await checkCommand(ALIAS)).refusals;
    expect(refusalDetail(alias!)).toBe(
      'Refused `shopt -s expand_aliases`: the script turns on alias expansion (`shopt -s expand_aliases`); an alias can hide a restart from the guard. The operator can allow this with WATCHKEEPER_GUARD_ALLOW_ALIASES=true',
    );
    const [perl] = (await checkCommand(`perl -e 'system("docker "."res"."tart x")'`)).refusals;
    expect(refusalDetail(perl!)).toBe(
      'Refused `perl -e \'system("docker "."res"."tart x")\'`: `perl` code can start a process (`system`), and the guard cannot follow what it runs. The operator can allow this with WATCHKEEPER_GUARD_ALLOW_INTERPRETERS=perl',
    );
  });

  it('lets through what the operator allows, by interpreter name or all', async () => {
    const found = [
      ...(await checkCommand(ALIAS)).refusals,
      ...(await checkCommand(`perl -e 'system("x")'`)).refusals,
      ...(await checkCommand(`python3 -c 'import os; os.system("x")'`)).refusals,
    ];
    const left = (interpreters: string[], aliases: boolean) => [
      ...new Set(unallowedRefusals(found, { interpreters, aliases }).map((r) => r.name)),
    ];
    expect(left([], false)).toEqual(['alias', 'perl', 'python']);
    expect(left(['perl'], false)).toEqual(['alias', 'python']);
    expect(left(['all'], true)).toEqual([]);
  });

  it('names the interpreters an operator may allow, and refuses an unknown one', () => {
    expect(
      loadConfig({
        WATCHKEEPER_GUARD_ALLOW_INTERPRETERS: 'perl, python',
        WATCHKEEPER_GUARD_ALLOW_ALIASES: 'yes',
      }).guard,
    ).toEqual({ interpreters: ['perl', 'python'], aliases: true });
    expect(loadConfig({}).guard).toEqual({ interpreters: [], aliases: false });
    expect(() => loadConfig({ WATCHKEEPER_GUARD_ALLOW_INTERPRETERS: 'pyhton' })).toThrow(
      /WATCHKEEPER_GUARD_ALLOW_INTERPRETERS.*unknown interpreter pyhton/,
    );
  });
});

describe('innocent commands are not refused', () => {
  it.each([
    "python3 -c 'print(1)'",
    "awk '{print $1}' /etc/hosts",
    "awk -F: '$3 >= 1000 {print $1}' /etc/passwd",
    `awk '{ print $1 | "sort -k2" } END { "date" | getline d }' x`,
    `curl -s http://jellyfin/health | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])'`,
    `python3 -c 'import re; print(re.compile("a+").findall("aaa"))'`,
    `python3 -c 'import os; print(os.listdir("/srv"))'`,
    "python3 - <<'EOF'\nimport json\nprint(json.dumps({'ok': True}))\nEOF",
    'python3 /opt/checks/disk.py',
    'python3 -m json.tool /tmp/x.json',
    "perl -ne 'print if /error/i' /var/log/syslog",
    `perl -MPOSIX -e 'print strftime("%F", localtime)'`,
    `perl -e 'open(my $fh, "<", "/etc/hosts") or die; print while <$fh>'`,
    `ruby -e 'require "json"; puts JSON.parse(STDIN.read)["a"]'`,
    `node -e 'console.log(JSON.parse(require("fs").readFileSync("/tmp/x.json", "utf8")).ok)'`,
    `node -e 'console.log(/a(b)/.exec("ab")[1])'`,
    `php -r 'echo json_encode(["a" => 1]);'`,
    "sed -i 's/foo/bar/' /etc/app.conf",
    'sed "s/$OLD/$NEW/" file',
    'alias',
    'alias -p',
    'unalias ll',
    'shopt -s nullglob',
    'shopt expand_aliases',
  ])('%s', async (command) => {
    expect(await refusals(command)).toEqual([]);
  });
});

describe('bypass forms the guard follows (jellyfin in cooldown)', () => {
  const cooling = (action: 'restart' | 'redeployment'): ServiceCooldown => ({
    service: 'jellyfin',
    action,
    count: 2,
    limit: 2,
    windowMs: 4 * HOUR_MS,
    inCooldown: true,
    lastAt: 0,
    freeAt: 4 * HOUR_MS,
  });
  it.each([
    'set -- docker restart jellyfin; "$@"',
    'x=(docker restart jellyfin); "${x[@]}"',
    "trap 'docker restart jellyfin' EXIT",
    'declare -n r=x; x=restart; docker $r jellyfin',
    "PROMPT_COMMAND='docker restart jellyfin' bash -i",
    "PS4='$(docker restart jellyfin)' bash -xc :",
    "export PS4='$(docker restart jellyfin)'; set -x; true",
  ])('refuses %s', async (command) => {
    const { intents } = await checkCommand(command);
    const conflict = findConflict(
      intents,
      [cooling('restart'), cooling('redeployment')],
      loadConfig({}).cooldowns,
    );
    expect(conflict?.service).toBe('jellyfin');
  });
});

describe('the alias form runs in real bash', () => {
  it('restarts through an alias, which is why the guard refuses it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wk-alias-'));
    try {
      const log = join(dir, 'calls');
      writeFileSync(join(dir, 'docker'), `#!/bin/sh\necho "$@" >> '${log}'\n`);
      chmodSync(join(dir, 'docker'), 0o755);
      const run = spawnSync('bash', ['-c', ALIAS], {
        env: { PATH: `${dir}:/usr/bin:/bin` },
        encoding: 'utf8',
      });
      expect(run.status).toBe(0);
      expect(readFileSync(log, 'utf8')).toBe('restart jellyfin\n');
      expect(await refusals(ALIAS)).toEqual(['alias:alias', 'alias:alias']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('commands run from an option or a variable are refused, unless the operator allows them', () => {
  it.each([
    ["git -c alias.x='!docker restart jellyfin' x", 'hook:git'],
    ["git -c core.fsmonitor='docker restart jellyfin' status", 'hook:git'],
    ["git -c core.sshCommand='sh -c x' fetch", 'hook:git'],
    ["git -c core.pager='sh -c x' log", 'hook:git'],
    ['git -c "$KEY=$VALUE" log', 'hook:git'],
    ['git --exec-path=/tmp/bin status', 'hook:git'],
    ["git config --global alias.r '!docker restart jellyfin'", 'hook:git'],
    ["tar -xf a.tar --to-command='docker restart jellyfin'", 'hook:tar'],
    ['tar --to-com=sh -xf a.tar', 'hook:tar'],
    ["tar -I 'sh -c x' -xf a.tar", 'hook:tar'],
    ['tar -cf a.tar --use-compress-program=./x dir', 'hook:tar'],
    [
      "tar -cf a.tar --checkpoint=1 --checkpoint-action=exec='docker restart jellyfin' dir",
      'hook:tar',
    ],
    ["ssh -o ProxyCommand='docker restart jellyfin' host uptime", 'hook:ssh'],
    ["ssh -o 'LocalCommand docker restart jellyfin' -o PermitLocalCommand=yes host", 'hook:ssh'],
    ['ssh -oPermitLocalCommand=yes -N host', 'hook:ssh'],
    ["vim -c '!docker restart jellyfin' -c q", 'hook:vim'],
    ["vi +'!docker restart jellyfin' file", 'hook:vim'],
    ["printf ':!docker restart jellyfin\\n' | ex", 'hook:vim'],
    ['vim -S /tmp/session.vim', 'hook:vim'],
    ["sort --compress-program='sh -c x' big.txt", 'hook:sort'],
    ["LESSOPEN='|docker restart jellyfin %s' less file", 'hook:less'],
    ['fc -s', 'hook:fc'],
    ['fc', 'hook:fc'],
    ["BASH_ENV=/tmp/x bash -c 'echo hi'", 'hook:BASH_ENV'],
    ['export BASH_ENV=$HOME/.profile', 'hook:BASH_ENV'],
    ['ENV=/tmp/x sh -i', 'hook:ENV'],
  ])('%s', async (command, expected) => {
    expect(await refusals(command)).toContain(expected);
  });

  it('says why, and which switch would allow it', async () => {
    const [git] = (await checkCommand("git -c alias.x='!docker restart jellyfin' x")).refusals;
    expect(refusalDetail(git!)).toBe(
      "Refused `git -c alias.x='!docker restart jellyfin' x`: `git -c alias.x` runs a command (`docker restart jellyfin`), and the guard cannot follow what it runs. The operator can allow this with WATCHKEEPER_GUARD_ALLOW_HOOKS=git",
    );
    const [env] = (await checkCommand("BASH_ENV=/tmp/x bash -c 'echo hi'")).refusals;
    expect(refusalDetail(env!)).toBe(
      "Refused `BASH_ENV=/tmp/x bash -c 'echo hi'`: `BASH_ENV=/tmp/x` makes the shell run a file first, which the guard cannot read. The operator can allow this with WATCHKEEPER_GUARD_ALLOW_HOOKS=BASH_ENV",
    );
  });

  it('lets through what the operator allows, the cooldowns still applying', async () => {
    const found = await checkCommand("git -c alias.x='!docker restart jellyfin' x");
    expect(unallowedRefusals(found.refusals, { interpreters: [], aliases: false })).toHaveLength(1);
    const allow = { interpreters: [], aliases: false, hooks: ['git'] };
    expect(unallowedRefusals(found.refusals, allow)).toEqual([]);
    expect(unallowedRefusals(found.refusals, { ...allow, hooks: ['all'] })).toEqual([]);
    expect(found.intents.some((i) => i.targets.includes('jellyfin'))).toBe(true);
    expect(loadConfig({ WATCHKEEPER_GUARD_ALLOW_HOOKS: 'git,BASH_ENV' }).guard.hooks).toEqual([
      'git',
      'BASH_ENV',
    ]);
    expect(() => loadConfig({ WATCHKEEPER_GUARD_ALLOW_HOOKS: 'gti' })).toThrow(
      /WATCHKEEPER_GUARD_ALLOW_HOOKS.*unknown hook gti/,
    );
  });

  it.each([
    'git -c color.ui=always log --oneline',
    'git -c core.pager=cat log',
    'git -c alias.st=status st',
    'git config --global user.name ops',
    'git --exec-path',
    'git -C /srv/app pull',
    'tar -czf a.tgz dir',
    'tar czf a.tgz dir',
    'tar -xzf a.tgz -C /tmp',
    'tar -tvf a.tar',
    'ssh -o ConnectTimeout=5 host uptime',
    'ssh -o StrictHostKeyChecking=no -o PermitLocalCommand=no host uptime',
    'sort -n file',
    'sort -k2 -t: file | uniq',
    'less file',
    'LESS=-R less file',
    'fc -l',
    'fc -ln -5',
    "vim -c 'set number' file",
    'vi +10 file',
    "vim -c '%s/a/b/g' -c 'wq!' file",
    'ENV=prod make deploy-docs',
    'BASH_ENV= bash -c true',
  ])('passes %s', async (command) => {
    expect(await refusals(command)).toEqual([]);
  });
});

describe('wrappers that run a restart are followed (jellyfin in cooldown)', () => {
  it.each([
    "find /srv -name x -exec docker restart jellyfin ';'",
    "find /srv -execdir docker restart jellyfin '{}' +",
    'echo jellyfin | xargs docker restart',
    'echo jellyfin | xargs -I{} docker restart {}',
    "watch 'docker restart jellyfin'",
    'watch -n 5 -x docker restart jellyfin',
    'timeout 5 docker restart jellyfin',
    'timeout -s KILL 5 docker restart jellyfin',
    'nice -n 5 docker restart jellyfin',
    'nohup docker restart jellyfin',
    'env -u X FOO=1 docker restart jellyfin',
    'setsid docker restart jellyfin',
    'stdbuf -oL docker restart jellyfin',
    "git -c alias.x='!docker restart jellyfin' x",
    "ssh -o ProxyCommand='docker restart jellyfin' host uptime",
    "BASH_ENV=<(echo 'docker restart jellyfin') bash -c true",
  ])('refuses %s', async (command) => {
    const { intents } = await checkCommand(command);
    const cooling = (action: 'restart' | 'redeployment'): ServiceCooldown => ({
      service: 'jellyfin',
      action,
      count: 2,
      limit: 2,
      windowMs: 4 * HOUR_MS,
      inCooldown: true,
      lastAt: 0,
      freeAt: 4 * HOUR_MS,
    });
    const conflict = findConflict(
      intents,
      [cooling('restart'), cooling('redeployment')],
      loadConfig({}).cooldowns,
    );
    expect(conflict?.service).toBe('jellyfin');
  });
});
