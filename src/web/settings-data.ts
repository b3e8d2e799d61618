/**
 * What the Settings page shows: the version, and each setting in effect with where it came from.
 * Secrets never leave the server: tokens, passwords and Apprise or notification URLs are shown
 * only as set or not, and any other value's URL credentials (`user:password@`) are masked.
 */
import { packageVersion } from '../config/package-root.js';
import type { EffectiveSetting } from '../config/index.js';

export const MASK = '••••••';

export interface SettingRow {
  name: string;
  value: string;
  source: string;
  isDefault: boolean;
}

/** `scheme://user:password@host` -> `scheme://user:••••••@host`, anywhere in the text. */
export function maskUrlCredentials(text: string): string {
  return text.replace(/(\/\/[^/@\s:,]*)(:[^/@\s,]*)?@/g, (_, user: string, pass?: string) =>
    pass ? `${user}:${MASK}@` : `${MASK}@`,
  );
}

function shown(s: EffectiveSetting): string {
  if (s.value === null) return '(not set)';
  if (s.secret) return s.value === '' ? '(empty)' : `${MASK} (set, hidden)`;
  return maskUrlCredentials(s.value);
}

export function settingsPage(settings: EffectiveSetting[]) {
  return {
    version: packageVersion(),
    settings: settings.map((s): SettingRow => ({
      name: s.name,
      value: shown(s),
      source: s.source ?? 'default',
      isDefault: s.source === null,
    })),
  };
}
