/**
 * Sidecars sharing one PostgreSQL database: its address, this instance's name, what the fleet
 * shares, and the lease after which a silent session counts as interrupted.
 */
import { z } from 'zod';

import { duration, list } from './parse.js';

/** A postgres:// (or postgresql://) address of the fleet's shared database. */
const databaseUrl = z.string().refine(
  (text) => {
    try {
      return ['postgres:', 'postgresql:'].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  },
  { message: 'expected a postgres:// URL such as postgres://wk@db.example.com/watchkeeper' },
);
/** An instance name: letters, digits and . _ -, not `fleet` (the shared memories' scope). */
const instanceName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, {
    message: 'expected a name of letters, digits, ".", "_" and "-" (at most 63), such as cluster-a',
  })
  .refine((s) => s !== 'fleet', { message: '"fleet" is the scope of shared memories' });

export const fleetShape = {
  DATABASE_URL: databaseUrl.optional(),
  INSTANCE: instanceName.default('local'),
  FLEET_MEMORY_SERVICES: list.default([]),
  FLEET_MEMORY_CATEGORIES: list.default([]),
  FLEET_COOLDOWN_SERVICES: list.default([]),
  LEASE: duration(5000).default(60_000),
};

/** Sidecars sharing one PostgreSQL database; a lone SQLite sidecar is the instance `local`. */
export interface FleetConfig {
  /** WATCHKEEPER_DATABASE_URL: the shared PostgreSQL database; null: the SQLite file (dbPath). */
  databaseUrl: string | null;
  /** WATCHKEEPER_INSTANCE: this sidecar's name on its sessions, events, cooldowns and memories. */
  instance: string;
  /** New memories about these services are shared with the whole fleet. */
  memoryServices: string[];
  /** New memories in these categories are shared with the whole fleet. */
  memoryCategories: string[];
  /** Services whose cooldown limits count every instance's actions (a database two clusters use). */
  cooldownServices: string[];
  /** A running session whose heartbeat is older than this is marked interrupted. */
  leaseMs: number;
}

export function fleetConfig(c: z.infer<z.ZodObject<typeof fleetShape>>): FleetConfig {
  return {
    databaseUrl: c.DATABASE_URL ?? null,
    instance: c.INSTANCE,
    memoryServices: c.FLEET_MEMORY_SERVICES,
    memoryCategories: c.FLEET_MEMORY_CATEGORIES,
    cooldownServices: c.FLEET_COOLDOWN_SERVICES,
    leaseMs: c.LEASE,
  };
}
