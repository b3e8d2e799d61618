/**
 * Service names are chosen by the model, so the same service arrives as `Jellyfin`,
 * `jellyfin` or ` JELLYFIN `. One spelling everywhere: trimmed and lower-cased.
 */
export function normaliseService(name: string): string {
  return name.trim().toLowerCase();
}

/** What a service name may contain, in a marker and in a cooldown check. */
export const SERVICE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
