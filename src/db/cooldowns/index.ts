/**
 * Operator controls of the cooldown guard: the actions it let through or refused, and the
 operator's resets and allowances.
 */
export * from './cooldowns.js';
export * from './cooldown-overrides.js';
