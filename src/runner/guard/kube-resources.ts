/**
 * What a kubectl command's operands say about the workloads it acts on: the resources named
 * (`deploy/x y/z`, `deployment x y`), the values of a label selector (`-l app=x`), and whether
 * every kind named is one whose change restarts nothing by itself. Pure.
 */
import { wordSet } from './options.js';
import { literal, litWord, type Word } from './words.js';

/** Kinds whose change restarts nothing by itself (a pod reads a changed secret on restart). */
const NOT_WORKLOADS = wordSet(`
  secret secrets configmap configmaps cm namespace namespaces ns serviceaccount serviceaccounts
  sa role roles rolebinding rolebindings clusterrole clusterroles clusterrolebinding
  clusterrolebindings token quota resourcequota priorityclass poddisruptionbudget pdb ingress
  ingresses service services svc networkpolicy networkpolicies pvc persistentvolumeclaim
  persistentvolumeclaims event events lease leases`);

/** True when every resource the operands name is of a kind that is not a workload. */
export function onlyNonWorkloads(ops: readonly Word[]): boolean {
  const first = ops[0] && literal(ops[0]);
  if (!first) return false;
  const kinds = (first.includes('/') ? ops.map((w) => literal(w) ?? '') : [first])
    .flatMap((t) => t.split('/')[0]!.split(','))
    .map((k) => k.toLowerCase().replace(/\..*$/, ''));
  return kinds.every((k) => NOT_WORKLOADS.has(k));
}

/** Resource operands: `deploy/x y/z` names them all; `deploy x y` names x and y. */
export function resourceNames(ops: readonly Word[]): Word[] {
  const first = ops[0] && literal(ops[0]);
  if (first === undefined) return [];
  if (first !== null && !first.includes('/')) return ops.slice(1);
  return [...ops];
}

/** `app=x,tier in (a,b)` -> x, a, b (the values that usually carry a service's name). */
export function selectorValues(selector: Word): { words: Word[]; all: boolean } {
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
