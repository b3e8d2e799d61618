/**
 * ssh: the remote command is a script the guard checks like a local one; with none, the
 * remote shell reads the local input. Its `-o` options that run a command are hooks
 * (option-hooks.ts). Pure.
 */
import { type Env, type Input, unknownProgram } from './env.js';
import { sshOptionHooks } from './option-hooks.js';
import { has, type OptionSpec, scanOptions, values } from './options.js';
import { shellFromStdin } from './shells.js';
import { joinWords, unknownWord, type Word, wordSource } from './words.js';

const SSH: OptionSpec = { short: 'BbcDEeFIiJLlmOoPpQRSWw' };

export function ssh(args: Word[], stdin: Input, env: Env, program: string): void {
  // OpenSSH reads options before and after the destination.
  const before = scanOptions(args, SSH);
  if (before.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  const [host, ...afterHost] = before.operands;
  if (!host) return;
  const after = scanOptions(afterHost, SSH);
  // A proxy or local command runs with -N too.
  sshOptionHooks(env, program, [...values(before, '-o'), ...values(after, '-o')]);
  if (has(before, '-N', '-O')) return;
  if (after.unresolved) return unknownProgram(env, [unknownWord(program), ...args]);
  if (has(after, '-N', '-O')) return;
  const remote = after.operands;
  const where = `\`${program} ${wordSource(host)}\``;
  if (remote.length === 0) return shellFromStdin(env, stdin, `${where} starts a remote shell`);
  env.engine.script(joinWords(remote), stdin, `${where} runs it`, env);
}
