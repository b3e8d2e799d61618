/**
 * A service named in a path, and the operator's description of it, with the same rules for the
 * Services page and the API: a name nothing knows is a 404, a bad description a 400 naming
 * `description`. An empty description restores the catalog's.
 */
import { AppError, isAppError } from '../errors.js';
import type { ServiceDetail, Services } from '../knowledge/index.js';
import { checkServiceName } from '../text-rules.js';

/** The service, or a not_found error (also for a name no service could have). */
export async function knownService(services: Services, raw: string): Promise<ServiceDetail> {
  const checked = checkServiceName(raw);
  const notKnown = () =>
    new AppError(
      'not_found',
      `service "${raw.slice(0, 100)}" is not known (no event, memory or cooldown names it)`,
    );
  if (!checked.ok) throw notKnown();
  try {
    return await services.show(checked.name);
  } catch (err) {
    if (isAppError(err) && err.code === 'not_found') throw notKnown();
    throw err;
  }
}

/** Sets the operator's description; nothing changes when it is refused. */
export async function describeService(
  services: Services,
  name: string,
  value: unknown,
): Promise<void> {
  if (typeof value !== 'string') {
    throw new AppError('usage', "description: must be text (empty restores the catalog's)", {
      data: { field: 'description' },
    });
  }
  try {
    // A browser sends a textarea's line ends as CRLF; any other control character is refused.
    await services.describeAwaited(name, value.replace(/\r\n?/g, '\n'), 'operator');
  } catch (err) {
    if (isAppError(err) && err.code === 'invalid_input') {
      throw new AppError('usage', err.message, {
        data: { field: 'description', ...err.data },
        cause: err,
      });
    }
    throw err;
  }
}
