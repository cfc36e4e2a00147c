import { publicUrl } from '../../config.js';
import type { Deps } from '../../deps.js';
import type { Reads } from '../../platform/read-cache.js';
import { frontendApiOrigins } from '../frontend-api/index.js';
import { isInMaintenance } from '../maintenance/index.js';

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
  };
}
