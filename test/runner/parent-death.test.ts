/** The CLI is spawned behind `setpriv --pdeathsig KILL` so that the kernel ends it with us. */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { findExecutable, withParentDeathSignal } from '../../src/process/parent-death.js';
import { alive, gone } from '../helpers/runner.js';
import { waitFor } from '../helpers/wait.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const SETPRIV = process.platform === 'linux' ? findExecutable('setpriv', PATH, '/') : null;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watchkeeper-pdeath-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function executable(name: string): string {
  const file = join(dir, name);
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, 0o755);
  return file;
}

describe('the parent-death wrapper', () => {
  it('is left out where setpriv is missing, off Linux, and when the CLI cannot be found', () => {
    const cli = executable('claude');
    const cmd = { bin: cli, args: ['-p', 'x'] };
    expect(withParentDeathSignal(cmd, { path: join(dir, 'none'), cwd: dir })).toEqual(cmd);
    expect(withParentDeathSignal(cmd, { path: PATH, cwd: dir, platform: 'darwin' })).toEqual(cmd);
    const missing = { bin: join(dir, 'not-there'), args: [] };
    expect(withParentDeathSignal(missing, { path: PATH, cwd: dir })).toEqual(missing);
  });

  it.skipIf(SETPRIV === null)('puts setpriv in front of the CLI, found as execvp would', () => {
    const cli = executable('claude');
    expect(
      withParentDeathSignal({ bin: 'claude', args: ['-p'] }, { path: `${dir}:${PATH}`, cwd: '/' }),
    ).toEqual({
      bin: SETPRIV,
      args: ['--pdeathsig', 'KILL', '--', cli, '-p'],
    });
    expect(
      withParentDeathSignal({ bin: './claude', args: [] }, { path: PATH, cwd: dir }).args,
    ).toEqual(['--pdeathsig', 'KILL', '--', cli]);
  });

  it.skipIf(SETPRIV === null)(
    `the kernel kills the detached child, after exec, when its parent is SIGKILLed${
      SETPRIV === null ? ' (skipped: no setpriv on PATH, install util-linux)' : ''
    }`,
    async () => {
      // The parent spawns exactly as runCliProcess does: detached (its own session and group).
      const cmd = withParentDeathSignal({ bin: 'sleep', args: ['300'] }, { path: PATH, cwd: dir });
      const parentScript = join(dir, 'parent.mjs');
      writeFileSync(
        parentScript,
        `import { spawn } from 'node:child_process';
const c = spawn(${JSON.stringify(cmd.bin)}, ${JSON.stringify(cmd.args)}, { detached: true, stdio: 'ignore' });
process.stdout.write(String(c.pid) + '\\n');
setInterval(() => {}, 1000);
`,
      );
      const parent = spawn(process.execPath, [parentScript], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      const childPid = await new Promise<number>((resolve) =>
        parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
      );
      try {
        // setpriv has exec'd sleep in place: same pid, its own group, the signal kept.
        const exec = `${findExecutable('sleep', PATH, '/')}\u0000300\u0000`;
        const cmdline = () => readFileSync(`/proc/${childPid}/cmdline`, 'utf8');
        await waitFor('setpriv to exec sleep', () => cmdline() === exec);
        expect(cmdline()).toBe(exec);
        const stat = readFileSync(`/proc/${childPid}/stat`, 'utf8');
        expect(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]).toBe(String(childPid));
        expect(alive(childPid)).toBe(true);

        parent.kill('SIGKILL');
        expect(await gone(childPid)).toBe(true);
      } finally {
        parent.kill('SIGKILL');
        try {
          process.kill(childPid, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
    },
  );
});
