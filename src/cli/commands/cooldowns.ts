/**
 * `watchkeeper cooldowns list|reset|allow`: the cooldown state per service with the operators'
 * overrides, and an override from the shell, recorded as `cli (USER)` with the reason given.
 * An override applies to this instance (WATCHKEEPER_INSTANCE) unless `--fleet` makes it
 * fleet-wide. `serve` reads the database, so a running sidecar's guard sees it at once.
 */
import { isoTime } from '../../db/index.js';
import { currentCooldowns } from '../../runner/cooldown-now.js';
import { parseCooldownOverride } from '../../web/cooldown-override-input.js';
import { overrideJson } from '../../web/operator-json.js';
import { openApp } from '../app.js';
import { flag, parse, str, unknownSubcommand, usageError } from '../args.js';
import { clip, json, shortTime, table } from '../format.js';
import { cliActor, type CliIo } from '../io.js';

export async function cooldownsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'list') {
    const p = parse(rest, { json: { type: 'boolean' } });
    const app = openApp(io);
    try {
      const now = io.clock.now();
      const state = currentCooldowns(
        app.stores,
        app.config.cooldowns,
        now,
        app.config.fleet.cooldownServices,
      );
      const overrides = await app.stores.cooldownOverrides.recent(20);
      if (flag(p, 'json')) {
        io.stdout(
          json({
            services: state.map((s) => ({
              service: s.service,
              action: s.action,
              count: s.count,
              limit: s.limit,
              in_cooldown: s.inCooldown,
              free_at: isoTime(s.freeAt),
            })),
            overrides: overrides.map(overrideJson),
          }),
        );
        return 0;
      }
      io.stdout(
        state.length === 0
          ? 'no restart or redeployment inside the windows\n'
          : table(
              ['SERVICE', 'ACTION', 'COUNT', 'STATE'],
              state.map((s) => [
                s.service,
                s.action,
                `${s.count}/${s.limit}`,
                s.inCooldown ? `in cooldown until ${shortTime(s.freeAt)}` : 'available',
              ]),
            ),
      );
      if (overrides.length > 0) {
        io.stdout(
          `\n${table(
            ['WHEN (UTC)', 'SERVICE', 'ACTION', 'OVERRIDE', 'FOR', 'WHO', 'WHY'],
            overrides.map((o) => [
              shortTime(o.createdAt),
              o.service,
              o.actionType ?? 'both',
              o.kind === 'reset' ? 'reset' : `+${o.extra} until ${shortTime(o.untilAt)}`,
              o.instance ?? 'fleet',
              o.actor,
              clip(o.reason, 60),
            ]),
          )}`,
        );
      }
      return 0;
    } finally {
      await app.close();
    }
  }
  if (sub === 'reset' || sub === 'allow') {
    const p = parse(
      rest,
      {
        reason: { type: 'string' },
        action: { type: 'string' },
        count: { type: 'string' },
        until: { type: 'string' },
        fleet: { type: 'boolean' },
      },
      1,
    );
    const service = p.positionals[0];
    if (service === undefined) throw usageError(`cooldowns ${sub} needs a service name`);
    const app = openApp(io);
    try {
      const input = parseCooldownOverride(
        {
          service,
          kind: sub,
          action: str(p, 'action'),
          count: str(p, 'count'),
          until: str(p, 'until'),
          reason: str(p, 'reason'),
          fleet: flag(p, 'fleet'),
        },
        io.clock.now(),
      );
      await app.stores.cooldownOverrides.insert({ ...input, actor: cliActor(io) });
      const scope = input.fleetWide
        ? 'every instance of the fleet'
        : app.config.fleet.cooldownServices.includes(input.service)
          ? 'every instance of the fleet, which shares its limits'
          : `instance ${app.config.fleet.instance}`;
      io.stdout(
        sub === 'reset'
          ? `reset: the ${input.actionType ?? 'restart and redeployment'} actions of ${input.service} so far no longer count (on ${scope})\n`
          : `allowed ${input.extra} more ${input.actionType ?? 'restart/redeployment'}(s) of ${input.service} until ${shortTime(input.untilAt)} UTC (on ${scope})\n`,
      );
      return 0;
    } finally {
      await app.close();
    }
  }
  throw unknownSubcommand('cooldowns', sub, ['list', 'reset', 'allow']);
}
