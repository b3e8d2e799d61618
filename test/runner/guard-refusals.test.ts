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
