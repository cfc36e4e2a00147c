import { publicUrl } from '../../config.js';
import type { Deps } from '../../deps.js';
import type { Reads } from '../../platform/read-cache.js';
import { frontendApiOrigins } from '../frontend-origins/index.js';
import { isInMaintenance } from '../maintenance/index.js';
import { RESOURCE_LIMITS } from './resource-limits.js';

/** The service's version, as package.json gives it. */
export const SERVICE_VERSION = '0.1.0';

/** What the admin UI reads at start (Unleash's ui-config, without its paid or hosted parts). */
export async function uiConfig(deps: Deps, reads: Reads) {
  return {
    name: 'Flagship',
    version: SERVICE_VERSION,
    unleashUrl: publicUrl(deps.config),
    baseUriPath: deps.config.BASE_URI_PATH,
    versionInfo: { current: { oss: SERVICE_VERSION }, latest: {}, isLatest: true },
    authenticationType: 'open-source',
    disablePasswordAuth: false,
    emailEnabled: false,
    maintenanceMode: await isInMaintenance(deps, reads),
    frontendApiOrigins: await frontendApiOrigins(deps, reads),
    flags: {},
    links: [],
    // Unleash's web UI takes an edition other than Pro, without an enterprise version, for open
    // source: it then shows the pages this service serves and none of the paid ones.
    environment: 'Open source',
    resourceLimits: RESOURCE_LIMITS,
  };
}
