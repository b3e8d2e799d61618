/**
 * Words that are not names, whatever their capital letter says. The offline rules take a
 * capitalised word mid-sentence for a person and a short all-capitals word for an acronym, and a
 * model may name a concept just as loosely; ops text is full of such words that name nothing:
 * status words a check reports ("Degraded: jellyfin", "FAILED"), the headings of a report
 * ("Cause:", "Changed:", "Verified:"), a line's first verb glued to the line before ("... after a
 * restart Takes 60s"), and the everyday words the old list held (days, months, pronouns). They
 * are kept here, in lower case, so that extraction and the pages leave out the same words.
 * Technologies, files and projects are named by stronger rules (the catalog, a path, the
 * session's project) and are never left out for being on this list.
 */
import type { EntityType } from '../db/graph/graph.js';

const EVERYDAY =
  'i the a an this that these those it its we our you your they their he she his her my me ' +
  'monday tuesday wednesday thursday friday saturday sunday january february march april may ' +
  'june july august september october november december today tomorrow yesterday yes no not ' +
  'ok okay also and but or so if when while then now here there what why how which who where ' +
  'let lets maybe please thanks thank hi hello hey oh well sure great good nice wow next last ' +
  'first second third finally note update done fixed decision question problem solution todo ' +
  'english french german spanish internet web mr mrs ms dr one two three some any all every ' +
  'after before during since until because instead however actually anyway still just ' +
  'true false null none undefined nan';

/** What checks and reports say about a service: states, outcomes and report headings. */
const OPS =
  'degraded healthy unhealthy down up outage offline online unreachable reachable available ' +
  'unavailable failed failing failure failures fail error errors warning warnings warn critical ' +
  'info debug fatal notice success succeeded successful passed pass pending running stopped ' +
  'started starting restarted restarting restart restarts redeployed redeploy rebooted reboot ' +
  'changed change changes verified verify cause causes caused root ruled rule out blocked ' +
  'refused denied allowed resolved solved recovered recovery mitigated mitigation fix fixes ' +
  'workaround status state result results outcome outcomes action actions check checks checked ' +
  'finding findings evidence reason reasons impact severity priority incident incidents alert ' +
  'alerts escalate escalated escalation escalating recommendation recommendations recommended ' +
  'steps step plan notes observation observations context details detail summary cooldown ' +
  'health latency timeout timeouts slow slowly unknown unchanged skipped ignored queued ' +
  'added removed updated created deleted tried ran see use using used run runs ' +
  'takes took take taking needs need needed keeps kept looks seems appears checking ' +
  'confirmed confirm suspected likely unlikely possible ready waiting stuck wedged';

const NOT_ENTITIES = new Set([...EVERYDAY.split(' '), ...OPS.split(' ')]);

/** The words above, for a query that leaves them out (lower case). */
export const NOT_ENTITY_WORDS: readonly string[] = [...NOT_ENTITIES];

/** Entity types a stronger rule names: never left out for being an everyday word. */
export const STRONG_ENTITY_TYPES: readonly EntityType[] = ['technology', 'file', 'project'];

/** Whether `name`, taken for an entity of `type`, may be one (not an everyday or status word). */
export function mayNameEntity(name: string, type: EntityType): boolean {
  return STRONG_ENTITY_TYPES.includes(type) || !NOT_ENTITIES.has(name.trim().toLowerCase());
}
