/**
 * Choosing among what discovery found: the playbooks and skills a tier may follow, and the
 * documents a name (`http`, or `checks/http`) stands for.
 */
import { DOC_KINDS, type RunbookDoc, type Runbooks, type Tier } from './types.js';

/** The runbooks as a session of `tier` gets them: playbooks and skills above it left out. */
export function allowedAt(r: Runbooks, tier: Tier): Runbooks {
  const allowed = (d: RunbookDoc) => d.minTier <= tier;
  return { ...r, playbooks: r.playbooks.filter(allowed), skills: r.skills.filter(allowed) };
}

/** Every document called `name` (or `kind/name`): two repositories may both have one. */
export function docsNamed(r: Runbooks, name: string): RunbookDoc[] {
  const [kind, own] = name.includes('/') ? name.split('/', 2) : [null, name];
  return DOC_KINDS.filter((k) => kind === null || k === kind).flatMap((k) =>
    r[k].filter((d) => d.name.toLowerCase() === own!.toLowerCase()),
  );
}
