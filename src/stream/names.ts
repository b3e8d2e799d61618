/**
 * Service names are chosen by the model, so the same service arrives as `Jellyfin`,
 * `jellyfin` or ` JELLYFIN `. One spelling and one rule everywhere (src/text-rules.ts).
 */
export {
  checkServiceName,
  normaliseServiceName as normaliseService,
  SERVICE_NAME as SERVICE_PATTERN,
} from '../text-rules.js';
