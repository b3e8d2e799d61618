/**
 * Notifications: what watchkeeper has to tell (de-duplicated, with a count) and each
 target's delivery (claimed, attempted, retried).
 */
export * from './notifications.js';
