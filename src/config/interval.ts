/**
 * CLAUDEOPS_INTERVAL (seconds between runs) turned into the cron schedule that runs at the same
 * even steps, or a refusal that names the two nearest schedules that can.
 */
import { AppError } from '../errors.js';

const SECOND = 1;
const MINUTE = 60;
const HOUR = 3600;
/**
 * Intervals (seconds) with a cron form that runs at even intervals, and that form: divisors of a
 * minute (6-field, with seconds), of an hour, of a day, a day and a week.
 */
const INTERVAL_SCHEDULES: [number, string][] = [
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((s): [number, string] => [
    s * SECOND,
    s === 1 ? '* * * * * *' : `*/${s} * * * * *`,
  ]),
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((m): [number, string] => [
    m * MINUTE,
    m === 1 ? '* * * * *' : `*/${m} * * * *`,
  ]),
  ...[1, 2, 3, 4, 6, 8, 12].map((h): [number, string] => [
    h * HOUR,
    h === 1 ? '0 * * * *' : `0 */${h} * * *`,
  ]),
  [24 * HOUR, '0 0 * * *'],
  [7 * 24 * HOUR, '0 0 * * 0'],
];

function intervalText(seconds: number): string {
  if (seconds % (24 * HOUR) === 0) return `${seconds / (24 * HOUR)}d`;
  if (seconds % HOUR === 0) return `${seconds / HOUR}h`;
  if (seconds % MINUTE === 0) return `${seconds / MINUTE}m`;
  if (seconds > MINUTE) return `${Math.floor(seconds / MINUTE)}m ${seconds % MINUTE}s`;
  return `${seconds}s`;
}

/**
 * CLAUDEOPS_INTERVAL (seconds between runs) as a cron schedule. An interval cron cannot run at even
 * steps (90 minutes, 7 minutes, 45 seconds) stops start-up with the two nearest that it can: a
 * schedule that silently ran at uneven times would be a different setting.
 */
export function intervalSchedule(value: string, name = 'CLAUDEOPS_INTERVAL'): string {
  const fail = (message: string): never => {
    throw new AppError('config_invalid', `${name}=${JSON.stringify(value)}: ${message}`, {
      data: { variable: name },
    });
  };
  if (!/^\s*\d+\s*$/.test(value) || Number(value) <= 0) {
    return fail('expected a whole number of seconds, such as 900');
  }
  const seconds = Number(value);
  const exact = INTERVAL_SCHEDULES.find(([s]) => s === seconds);
  if (exact) return exact[1];
  const below = [...INTERVAL_SCHEDULES].reverse().find(([s]) => s < seconds);
  const above = INTERVAL_SCHEDULES.find(([s]) => s > seconds);
  const options = [below, above]
    .filter((o): o is [number, string] => o !== undefined)
    .map(([s, expr]) => `"${expr}" (every ${intervalText(s)})`)
    .join(' or ');
  return fail(
    `every ${intervalText(seconds)} has no cron schedule that runs at even intervals; set WATCHKEEPER_SCHEDULE instead, e.g. ${options}`,
  );
}
