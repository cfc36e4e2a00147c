import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { Reads } from '../../platform/read-cache.js';
import { appendEvent } from '../events/index.js';
import { readMaintenance, writeMaintenance } from './maintenance.store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `handler`: the route's handler refuses writes in maintenance mode itself (`maintenanceError`,
     * usually within its write statement, `maintenanceIsOn`), so the guard does not read the mode
     * first. For the hottest writes (a flag's PUT and create): one round trip fewer each.
     */
    maintenance?: 'handler';
  }
}

/** What a configuration write answers in maintenance mode (503). */
export const maintenanceError = () =>
  new AppError(
    'ServiceUnavailableError',
    'The service is in maintenance mode: configuration cannot change until an admin turns it off (POST /api/admin/maintenance {"enabled": false}).',
  );

/** Refuses a write in maintenance mode, for routes that check it themselves, on their slower paths. */
export async function refuseInMaintenance(db: Deps['database']['db']): Promise<void> {
  if (await readMaintenance(db)) throw maintenanceError();
}

/** Kept in the read cache: the toggle records an event, which moves the change version. */
export const isInMaintenance = (deps: Deps, reads: Reads) =>
  reads.read('maintenance', () => readMaintenance(deps.database.db));

/** Turns maintenance mode on or off and records `maintenance-mode-toggled` when it changed. */
export async function setMaintenance(deps: Deps, enabled: boolean, by: Principal): Promise<void> {
  await transaction(deps.database.db, async (tx) => {
    const before = await writeMaintenance(tx, enabled);
    if (before === enabled) return;
    await appendEvent(tx, {
      type: 'maintenance-mode-toggled',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { enabled },
    });
  });
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Admin operations that only read though they are POSTs (evaluation, checks, exports), and the
 * toggle itself: they keep working in maintenance mode.
 */
const READ_ONLY_POSTS = [
  /^\/api\/admin\/maintenance$/,
  /^\/api\/admin\/playground(\/advanced)?$/,
  /\/validate$/,
  /^\/api\/admin\/features-batch\/export$/,
];

/**
 * Whether maintenance mode refuses this operation, by its route pattern (`:name` parameters), so
 * that a parameter's value never decides: a flag named `validate` is not a check.
 */
function refusedInMaintenance(method: string, path: string): boolean {
  return (
    WRITES.has(method) &&
    path.startsWith('/api/admin/') &&
    !READ_ONLY_POSTS.some((pattern) => pattern.test(path))
  );
}

/**
 * Lists the 503 among the error answers of every operation maintenance mode refuses (those the
 * guard refuses and those that refuse it themselves), for the OpenAPI document. Add before the
 * routes: it sees each route as it is added.
 */
export function documentMaintenance(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.schema || !methods.some((method) => refusedInMaintenance(method, route.url))) return;
    // A new object: route schemas may share their response maps.
    route.schema = {
      ...route.schema,
      response: { ...(route.schema.response as object), ...errorResponses(503) },
    };
  });
}

/**
 * While maintenance mode is on, configuration writes through the admin API answer 503
 * `ServiceUnavailableError`; reads, the SDK APIs (client, frontend), sign-in and the toggle keep
 * working. A preHandler, so a caller without the right still gets its 401/403 first.
 */
export function maintenanceGuard(deps: Deps) {
  // Read directly, not through the read cache: nearly every write moves the change version, so
  // the cache would probe the version and then read the setting anyway (two statements, not one).
  const check = () => refuseInMaintenance(deps.database.db);
  // A callback hook: the requests it lets through at once (reads, the SDK APIs: nearly all of
  // them) cost no promise.
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    if (request.routeOptions.config.maintenance === 'handler') return done();
    // The rule documentMaintenance lists, on the same route pattern (the path of an unknown route).
    const route = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
    if (!refusedInMaintenance(request.method, route)) return done();
    check().then(() => done(), done);
  };
}
