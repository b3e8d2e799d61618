/**
 * Kubernetes, Helm and Ansible: which of their commands restart or redeploy what. Pods and
 * deployments are named directly (`deploy/x`, `deployment x`) or by a label selector
 * (`-l app=x`); a manifest file, `--all` or a playbook without `--limit` acts on services the
 * guard cannot see. Pure.
 */
import type { CooldownAction } from '../../stream/index.js';
import {
  type Env,
  everything,
  type Handler,
  type Input,
  insideContainer,
  named,
  opaque,
  unresolved,
} from './env.js';
import { targetsOf } from './intent.js';
import { has, type OptionSpec, scanOptions, values, wordsOf, wordSet } from './options.js';
import { literal, litWord, type Word, wordSource, wordText } from './words.js';

const KUBECTL: OptionSpec = {
  short: 'nslfcopL',
  long: wordsOf(`
    namespace context cluster user server kubeconfig token as as-group as-uid selector
    filename output container field-selector timeout patch type sort-by template
    request-timeout cache-dir certificate-authority client-key client-certificate
    tls-server-name profile profile-output kustomize replicas current-replicas
    resource-version grace-period cascade field-manager subresource to-revision env from
    prefix keys containers`),
  permute: true,
};
const KUBECTL_QUIET = wordSet(`
  get describe logs top explain api-resources api-versions version cluster-info config
  auth wait port-forward proxy cp diff events label annotate cordon uncordon completion
  plugin kustomize certificate alpha help attach debug expose autoscale taint`);
const ROLLOUT: Record<string, CooldownAction> = {
  restart: 'restart',
  undo: 'redeployment',
  pause: 'restart',
  resume: 'redeployment',
};

/** Kinds whose change restarts nothing by itself (a pod reads a changed secret on restart). */
const NOT_WORKLOADS = wordSet(`
  secret secrets configmap configmaps cm namespace namespaces ns serviceaccount serviceaccounts
  sa role roles rolebinding rolebindings clusterrole clusterroles clusterrolebinding
  clusterrolebindings token quota resourcequota priorityclass poddisruptionbudget pdb ingress
  ingresses service services svc networkpolicy networkpolicies pvc persistentvolumeclaim
  persistentvolumeclaims event events lease leases`);

/** True when every resource the operands name is of a kind that is not a workload. */
function onlyNonWorkloads(ops: readonly Word[]): boolean {
  const first = ops[0] && literal(ops[0]);
  if (!first) return false;
  const kinds = (first.includes('/') ? ops.map((w) => literal(w) ?? '') : [first])
    .flatMap((t) => t.split('/')[0]!.split(','))
    .map((k) => k.toLowerCase().replace(/\..*$/, ''));
  return kinds.every((k) => NOT_WORKLOADS.has(k));
}

/** Resource operands: `deploy/x y/z` names them all; `deploy x y` names x and y. */
function resourceNames(ops: readonly Word[]): Word[] {
  const first = ops[0] && literal(ops[0]);
  if (first === undefined) return [];
  if (first !== null && !first.includes('/')) return ops.slice(1);
  return [...ops];
}

/** `app=x,tier in (a,b)` -> x, a, b (the values that usually carry a service's name). */
function selectorValues(selector: Word): { words: Word[]; all: boolean } {
  const text = literal(selector);
  if (text === null) return { words: [selector], all: false };
  const words: Word[] = [];
  let all = false;
  for (const clause of text.split(/,(?![^(]*\))/)) {
    const set = /\b(?:in|notin)\s*\(([^)]*)\)/.exec(clause);
    if (set) words.push(...set[1]!.split(',').map((v) => litWord(v.trim())));
    else if (clause.includes('='))
      words.push(litWord(clause.slice(clause.lastIndexOf('=') + 1).trim()));
    else all = true; // `-l app`: every pod carrying the label
  }
  return { words: words.filter((w) => literal(w) !== ''), all };
}

/**
 * A tool with sub-commands (`kubectl rollout`, `helm upgrade`): its options scanned and its verb
 * read. Null when there is no verb, or when it cannot be read (and the guard has been told so).
 */
function subcommand(args: Word[], spec: OptionSpec, env: Env, program: string) {
  const scan = scanOptions(args, spec);
  const [sub, ...ops] = scan.operands;
  if (!sub) return null;
  const verb = literal(sub);
  if (verb === null || scan.unresolved) {
    unresolved(env, args, `its \`${program}\` command cannot be resolved`, true);
    return null;
  }
  return { scan, verb, ops, what: `\`${program} ${verb}\`` };
}

export const kubectl: Handler = (args, stdin, env, program) => {
  const command = subcommand(args, KUBECTL, env, program);
  if (!command) return;
  const { scan, verb, ops, what } = command;
  if (verb === 'exec') return kubectlExec(args, stdin, env);
  if (KUBECTL_QUIET.has(verb)) return;
  let action: CooldownAction | null = null;
  let names = ops;
  let label = what;
  if (verb === 'rollout') {
    const op = literal(ops[0] ?? []);
    if (op === null) return unresolved(env, args, `${what} cannot be resolved`, true);
    action = ROLLOUT[op ?? ''] ?? null;
    if (action === null) return; // status, history
    names = ops.slice(1);
    label = `${what} ${op}`;
  } else if (verb === 'delete' || verb === 'scale' || verb === 'drain') {
    action = 'restart';
  } else if (verb === 'set') {
    action = 'redeployment';
    names = ops.slice(1).filter((w) => !wordText(w).includes('='));
    label = `${what} ${wordSource(ops[0] ?? [])}`;
  } else if (['apply', 'replace', 'patch', 'edit', 'create', 'run'].includes(verb)) {
    action = 'redeployment';
  }
  if (action === null)
    return unresolved(env, scan.operands, `${what} is not a command the guard knows`);
  if (verb !== 'rollout' && verb !== 'set' && onlyNonWorkloads(names)) return;
  if (verb === 'drain') return everything(env, [action], `${what} evicts every pod of the node`);
  const targets = verb === 'run' ? ops.slice(0, 1) : resourceNames(names);
  const selectors = values(scan, '-l', '--selector').map(selectorValues);
  targets.push(...selectors.flatMap((s) => s.words));
  if (has(scan, '--all', '-A', '--all-namespaces') || selectors.some((s) => s.all))
    return everything(env, [action], `${label} --all acts on every service`);
  if (has(scan, '-f', '--filename', '-k', '--kustomize'))
    return everything(env, [action], `${label} -f applies a manifest the guard cannot read`);
  if (targets.length === 0)
    return everything(env, [action], `${label} names nothing the guard can read`);
  named(env, action, targets, `${label} acts on it`);
};

function kubectlExec(args: Word[], stdin: Input, env: Env): void {
  const dash = args.findIndex((w) => literal(w) === '--');
  const head = scanOptions(dash === -1 ? args : args.slice(0, dash), KUBECTL);
  const pod = head.operands[1];
  const inner = dash === -1 ? head.operands.slice(2) : args.slice(dash + 1);
  if (pod) insideContainer(env, pod, inner, stdin);
}

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

const PLAYBOOK: OptionSpec = {
  short: 'ieltuTfcMk',
  long: wordsOf(`
    inventory extra-vars limit tags skip-tags user forks connection timeout vault-id
    vault-password-file private-key key-file module-path start-at-task become-method
    become-user ssh-common-args ssh-extra-args scp-extra-args sftp-extra-args`),
  permute: true,
};

/** `--limit a,b:!c` -> a, b, c; `all` or a wildcard acts on every host. */
function limitTargets(env: Env, limits: readonly Word[], what: string): Word[] | null {
  const out: Word[] = [];
  for (const w of limits) {
    const text = literal(w);
    if (text === null) {
      out.push(w);
      continue;
    }
    for (const part of text.split(/[,:]/)) {
      const name = part.replace(/^[!&]/, '').trim();
      if (name === 'all' || name === '*') {
        everything(env, ['redeployment'], `${what} --limit ${name} acts on every host`);
        return null;
      }
      if (name) out.push(litWord(name));
    }
  }
  return out;
}

export const ansiblePlaybook: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, PLAYBOOK);
  if (has(scan, '-C', '--check', '--syntax-check', '--list-hosts', '--list-tasks', '--list-tags'))
    return;
  const what = `\`${program}\``;
  const limits = values(scan, '-l', '--limit');
  if (limits.length === 0)
    return everything(env, ['redeployment'], `${what} without --limit may act on every service`);
  const targets = limitTargets(env, limits, what);
  if (targets) named(env, 'redeployment', targets, `${what} --limit acts on it`);
};

const SERVICE_MODULES =
  /^(ansible\.builtin\.|ansible\.legacy\.|community\.general\.|community\.docker\.)?(service|systemd|systemd_service|sysvinit|runit|supervisorctl|docker_container|docker_compose|docker_compose_v2|docker_swarm_service)$/;

export const ansible: Handler = (args, _stdin, env, program) => {
  const scan = scanOptions(args, {
    ...PLAYBOOK,
    short: `${PLAYBOOK.short}ma`,
    long: [...PLAYBOOK.long!, 'module-name', 'args'],
  });
  if (has(scan, '-C', '--check', '--list-hosts')) return;
  const module = values(scan, '-m', '--module-name').map(literal)[0] ?? 'command';
  const moduleArgs = values(scan, '-a', '--args');
  const text = moduleArgs.map(wordText).join(' ');
  const what = `\`${program} -m ${module ?? '?'}\``;
  if (module === null) return unresolved(env, args, `${what} cannot be resolved`, true);
  if (/^(ansible\.builtin\.)?(shell|command|raw)$/.test(module))
    return env.engine.script(text, { kind: 'none' }, `${what} runs it`, env);
  if (/(^|\.)reboot$/.test(module))
    return everything(env, ['restart'], `${what} reboots the hosts`);
  if (SERVICE_MODULES.test(module)) {
    const kv = new Map(
      [...text.matchAll(/([A-Za-z_]+)=("[^"]*"|'[^']*'|\S+)/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/^["']|["']$/g, ''),
      ]),
    );
    const state = kv.get('state') ?? '';
    const changes =
      /^(restarted|stopped|started|reloaded|absent|present)$/.test(state) ||
      /^(yes|true)$/i.test(kv.get('restart') ?? kv.get('restarted') ?? kv.get('recreate') ?? '');
    if (!changes) return;
    const name = kv.get('name') ?? kv.get('services') ?? kv.get('project_name');
    if (!name) return everything(env, ['restart'], `${what} names no service`);
    return named(
      env,
      'restart',
      name.split(',').map((n) => litWord(n.trim())),
      `${what} ${state || 'restart'} acts on it`,
    );
  }
  opaque(env, text, `${what} names it with a restart-like word`);
};
