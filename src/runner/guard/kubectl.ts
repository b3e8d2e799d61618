/**
 * Kubernetes: which kubectl (and oc) commands restart or redeploy what. Workloads are named
 * directly (`deploy/x`, `deployment x`) or by a label selector (`-l app=x`); a manifest file or
 * `--all` acts on services the guard cannot see; `kubectl exec` runs a command inside the pod.
 * Pure.
 */
import type { CooldownAction } from '../../stream/index.js';
import {
  type Env,
  everything,
  type Handler,
  type Input,
  insideContainer,
  named,
  unresolved,
} from './env.js';
import { onlyNonWorkloads, resourceNames, selectorValues } from './kube-resources.js';
import { has, type OptionSpec, scanOptions, values, wordsOf, wordSet } from './options.js';
import { subcommand } from './subcommand.js';
import { literal, type Word, wordSource, wordText } from './words.js';

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
