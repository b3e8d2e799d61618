/**
 * Which instance a new memory belongs to: the one that learned it, or the whole fleet when a
 * share rule names its service or category. Apart from sharing.ts, which the shared context
 * (context.ts) is built from, so that neither imports the other.
 */
import { FLEET } from '../../db/index.js';

/** New memories about these services, or in these categories, are shared with the fleet. */
export interface ShareRules {
  memoryServices?: readonly string[];
  memoryCategories?: readonly string[];
}

/** Where a new memory goes: the fleet when a share rule names its service or category. */
export function placement(
  instance: string,
  share: ShareRules | undefined,
): (service: string | null, category: string) => string {
  const sharedServices = new Set((share?.memoryServices ?? []).map((s) => s.toLowerCase()));
  const sharedCategories = new Set((share?.memoryCategories ?? []).map((s) => s.toLowerCase()));
  return (service, category) =>
    (service !== null && sharedServices.has(service.toLowerCase())) ||
    sharedCategories.has(category.toLowerCase())
      ? FLEET
      : instance;
}
