/**
 * Commands that run a command as another user or in another root or namespace (`sudo -iu root`,
 * `doas`, `su -c`, `runuser -u x --`, `chroot`, `nsenter`, `unshare`); with no command, most
 * start a shell reading its input. Pure.
 */
import { type Env, type Handler, type Input, unknownProgram } from './env.js';
import { has, scanOptions, values, wordsOf } from './options.js';
import { shellFromStdin } from './shells.js';
import { wrapper } from './wrapper-kit.js';
import { unknownWord, type Word, wordText } from './words.js';

function su(args: Word[], stdin: Input, env: Env, program: string): void {
  const scan = scanOptions(args, {
    short: 'cgGsuwC',
    long: wordsOf('command session-command group supp-group shell user whitelist-environment'),
    permute: true,
  });
  if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  const commands = values(scan, '-c', '--command', '--session-command');
  if (commands.length > 0) {
    for (const c of commands)
      env.engine.script(wordText(c), stdin, `\`${program} -c\` runs it`, env);
    return;
  }
  // `runuser -u user -- cmd args` runs a command; `su [-] [user]` starts a shell.
  if (program === 'runuser' && has(scan, '-u', '--user') && scan.operands.length > 0)
    return env.engine.classify(scan.operands, stdin, env);
  shellFromStdin(env, stdin, `\`${program}\` starts a shell`);
}

export const RUN_AS: Record<string, Handler> = {
  sudo: wrapper(
    {
      short: 'CDghpRrTtUuc',
      long: wordsOf(`
    user group host prompt chdir chroot close-from role type other-user command-timeout
    login-class`),
    },
    { assignments: true, shell: ['-i', '-s', '--login', '--shell'] },
  ),
  doas: wrapper({ short: 'aCu' }, { shell: ['-s'] }),
  chroot: (args, stdin, env, program) => {
    const scan = scanOptions(args, { long: ['userspec', 'groups'] });
    if (scan.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
    const inner = scan.operands.slice(1);
    if (inner.length === 0) return shellFromStdin(env, stdin, `\`${program}\` starts a shell`);
    env.engine.classify(inner, stdin, env);
  },
  nsenter: wrapper(
    {
      short: 'tSGe',
      attached: 'muinpUCTrwN',
      long: ['target', 'setuid', 'setgid', 'env'],
    },
    { shell: true },
  ),
  unshare: wrapper(
    { attached: 'muinpUCTr', long: ['setuid', 'setgid', 'map-user', 'map-group'] },
    { shell: true },
  ),
  runuser: su,
  su,
};
