/**
 * The files a simple command writes or removes, by program: what the read-only rule of a
 * repository refuses inside it. `rm`, `mv`, `touch` and the like change every operand; `cp`,
 * `install`, `ln`, `rsync` only their destination; `sed -i` and `perl -i` the files they edit;
 * `git commit`, `git push` and the other commands that change a checkout, its folder.
 */
import { literal, litWord, type Word } from '../guard/words.js';

const ALL_OPERANDS = new Set(
  'rm rmdir unlink touch mkdir truncate shred tee mv'.split(' ').concat(['srm']),
);
const DESTINATION = new Set(['cp', 'install', 'ln', 'rsync', 'scp']);
const AFTER_FIRST = new Set(['chmod', 'chown', 'chgrp']);
const EDITORS = new Set(['sed', 'gsed', 'perl']);
const GIT_CHANGES = new Set(
  (
    'commit push add rm mv reset checkout switch restore merge rebase pull stash apply am ' +
    'clean cherry-pick revert tag'
  ).split(' '),
);

const isOption = (w: Word) => (literal(w) ?? '').startsWith('-');

function operands(args: readonly Word[]): Word[] {
  const end = args.findIndex((w) => literal(w) === '--');
  if (end < 0) return args.filter((w) => !isOption(w));
  return [...args.slice(0, end).filter((w) => !isOption(w)), ...args.slice(end + 1)];
}

/** `sed -i 's/a/b/' f`, `perl -pi -e '...' f`: the edited files, when editing in place. */
function editedFiles(args: readonly Word[]): Word[] {
  const inPlace = args.some((w) => /^(-[a-zA-Z]*i|--in-place)/.test(literal(w) ?? ''));
  if (!inPlace) return [];
  const files: Word[] = [];
  let script = false;
  for (let i = 0; i < args.length; i += 1) {
    const a = literal(args[i]!) ?? '';
    if (/^(-[a-zA-Z]*[ef]|--expression|--file)$/.test(a)) {
      script = true;
      i += 1;
    } else if (!isOption(args[i]!)) files.push(args[i]!);
  }
  return script ? files : files.slice(1);
}

/** `git -C dir commit`: the checkout it changes (`.` for the working folder). */
function gitCheckout(args: readonly Word[]): Word[] {
  let dir: Word = litWord('.');
  for (let i = 0; i < args.length; i += 1) {
    const a = literal(args[i]!) ?? '';
    if (a === '-C' && args[i + 1]) dir = args[++i]!;
    else if (a === '-c') i += 1;
    else if (a.startsWith('--work-tree=')) dir = litWord(a.slice(12));
    else if (!a.startsWith('-'))
      return GIT_CHANGES.has(a) || literal(args[i]!) === null ? [dir] : [];
  }
  return [];
}

export function writeTargets(program: string, args: readonly Word[]): Word[] {
  if (ALL_OPERANDS.has(program)) return operands(args);
  if (AFTER_FIRST.has(program)) return operands(args).slice(1);
  if (EDITORS.has(program)) return editedFiles(args);
  if (program === 'git') return gitCheckout(args);
  if (program === 'dd') {
    return args.flatMap((w) => {
      const a = literal(w);
      return a?.startsWith('of=') ? [litWord(a.slice(3))] : [];
    });
  }
  if (DESTINATION.has(program)) {
    const target = args.findIndex((w) => /^(-t|--target-directory)$/.test(literal(w) ?? ''));
    if (target >= 0 && args[target + 1]) return [args[target + 1]!];
    const ops = operands(args);
    return ops.length >= 2 ? [ops[ops.length - 1]!] : [];
  }
  return [];
}
