/**
 * Helm: which of its commands redeploy a release (`upgrade`, `install`, `rollback`,
 * `uninstall`); an umbrella chart's `--set` values name the services it carries. Pure.
 */
import { everything, type Handler, unresolved } from './env.js';
import { targetsOf } from './intent.js';
import { has, type OptionSpec, values, wordsOf, wordSet } from './options.js';
import { subcommand } from './subcommand.js';
import { wordText } from './words.js';

const HELM: OptionSpec = {
  short: 'nfo',
  long: wordsOf(`
    namespace kube-context kubeconfig values set set-string set-file set-json set-literal
    version timeout repo description post-renderer post-renderer-args history-max output
    username password ca-file cert-file key-file registry-config repository-cache
    repository-config burst-limit qps kube-apiserver kube-as-user kube-as-group kube-ca-file
    kube-token kube-tls-server-name max name-template deletion-propagation cascade`),
  permute: true,
};
const HELM_CHANGE = wordSet(`
  upgrade install rollback uninstall delete del un`);
const HELM_QUIET = wordSet(`
  list ls status get history hist template repo search show inspect dependency dep lint
  package pull fetch push env version plugin registry test verify completion create help`);

export const helm: Handler = (args, _stdin, env, program) => {
  const command = subcommand(args, HELM, env, program);
  if (!command) return;
  const { scan, verb, ops, what } = command;
  if (HELM_QUIET.has(verb)) return;
  if (!HELM_CHANGE.has(verb))
    return unresolved(env, scan.operands, `${what} is not a command the guard knows`);
  const releases =
    verb === 'uninstall' || verb === 'delete' || verb === 'del' || verb === 'un'
      ? ops
      : ops.slice(0, 1);
  if (releases.length === 0 || has(scan, '--generate-name', '-g'))
    return everything(env, ['redeployment'], `${what} names no release`);
  const { targets, patterns } = targetsOf(releases);
  // An umbrella chart's values name the services it carries (`--set jellyfin.image.tag=x`).
  const settings = values(scan, '--set', '--set-string', '--set-json', '--set-literal');
  env.emit({
    action: 'redeployment',
    targets,
    patterns,
    mentions: settings.map(wordText),
    untargeted: false,
    why: `${what} redeploys it`,
  });
};
