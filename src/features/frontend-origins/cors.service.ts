import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { parseOrigins } from '../../platform/http/cors.js';
import { invalid } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import { webUrl } from '../../platform/web-url.js';
import { appendEvent } from '../events/index.js';
import { SDK_STALENESS_MS } from '../frontend-api/index.js';
import type { ConfigurationSource } from '../snapshot/index.js';
import { FRONTEND_SETTINGS, readFrontendOrigins, writeFrontendOrigins } from './cors.store.js';

/** The origins in effect: those stored through the admin API, else FRONTEND_CORS_ORIGINS. */
const effective = (deps: Deps, stored: string[] | undefined) =>
  stored === undefined ? parseOrigins(deps.config.FRONTEND_CORS_ORIGINS) : parseOrigins(stored.join(','));

/**
 * The allowed origins as the frontend API's CORS reads them on every request, from memory. The
 * setting is read again when this instance's configuration cache moves to a new revision (ADR
 * 0007: at once on a NOTIFY, within a second by its poll), and every change of the setting records
 * an event, which is a new revision: a change made on any instance applies on all of them, at the
 * cost of one primary-key read per revision rather than one per request. The instance that made
 * the change applies it at once (`changed`).
 */
export class FrontendOrigins {
  private origins: string[] | undefined;
  private revision = -1;
  private reading: Promise<string[]> | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly configuration: ConfigurationSource,
  ) {}

  /** The origins, at once (no promise) while the configuration in memory is current. */
  current(): string[] | Promise<string[]> {
    const config = this.configuration.peek(SDK_STALENESS_MS);
    if (config && this.origins !== undefined && config.revision <= this.revision) return this.origins;
    return this.read();
  }

  private async read(): Promise<string[]> {
    const { revision } = await this.configuration.get({ within: SDK_STALENESS_MS });
    if (this.origins !== undefined && revision <= this.revision) return this.origins;
    this.reading ??= readFrontendOrigins(this.deps.database.db)
      .then((stored) => {
        // A read that overlapped a local change may bring the older value; the change's own event
        // is a newer revision, whose read corrects it.
        if (revision > this.revision) {
          this.origins = effective(this.deps, stored);
          this.revision = revision;
        }
        return this.origins as string[];
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  changed(stored: string[]): void {
    this.origins = effective(this.deps, stored);
  }
}

/** For the admin UI's configuration: from the read cache, which the setting's event invalidates. */
export const frontendApiOrigins = async (deps: Deps, reads: Reads) =>
  effective(deps, await reads.read('frontend-api-origins', () => readFrontendOrigins(deps.database.db)));

/**
 * Unleash's `validateOrigin`: `*`, or an http(s) origin written as the browser sends it (scheme,
 * host, port; no path, no trailing slash).
 */
function validOrigin(origin: string): boolean {
  if (origin === '*') return true;
  return webUrl(origin)?.origin === origin;
}

/**
 * Stores the frontend API's allowed origins and records `setting-created` (first time) or
 * `setting-updated`, as Unleash's setting service does (`data`: `{id, frontendApiOrigins}`).
 */
export async function setFrontendOrigins(deps: Deps, origins: string[], by: Principal): Promise<string[]> {
  const bad = origins.findIndex((o) => !validOrigin(o));
  if (bad >= 0) {
    throw invalid(`Invalid origin: ${origins[bad]}`, [
      {
        path: `/body/frontendApiOrigins/${bad}`,
        message: 'An origin is * or scheme://host[:port], without a path or trailing slash.',
      },
    ]);
  }
  const list = [...new Set(origins)];
  await transaction(deps.database.db, async (tx) => {
    const before = await writeFrontendOrigins(tx, list);
    await appendEvent(tx, {
      type: before === undefined ? 'setting-created' : 'setting-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { id: FRONTEND_SETTINGS, frontendApiOrigins: list },
      ...(before !== undefined && { preData: { id: FRONTEND_SETTINGS, frontendApiOrigins: before } }),
    });
  });
  return list;
}
