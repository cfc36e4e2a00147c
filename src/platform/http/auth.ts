import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/** Permission names as Unleash spells them (they appear in the caller's own permission list). */
export type Permission =
  | 'ADMIN'
  | 'CREATE_FEATURE'
  | 'UPDATE_FEATURE'
  | 'DELETE_FEATURE'
  | 'CREATE_PROJECT'
  | 'UPDATE_PROJECT'
  | 'DELETE_PROJECT'
  | 'CREATE_FEATURE_STRATEGY'
  | 'UPDATE_FEATURE_STRATEGY'
  | 'DELETE_FEATURE_STRATEGY'
  | 'UPDATE_FEATURE_ENVIRONMENT'
  | 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS'
  | 'UPDATE_FEATURE_DEPENDENCY'
  | 'APPROVE_CHANGE_REQUEST'
  | 'APPLY_CHANGE_REQUEST'
  | 'SKIP_CHANGE_REQUEST'
  | 'CREATE_SEGMENT'
  | 'UPDATE_SEGMENT'
  | 'DELETE_SEGMENT'
  | 'CREATE_TAG_TYPE'
  | 'UPDATE_TAG_TYPE'
  | 'DELETE_TAG_TYPE'
  | 'CREATE_CONTEXT_FIELD'
  | 'UPDATE_CONTEXT_FIELD'
  | 'DELETE_CONTEXT_FIELD'
  | 'CREATE_STRATEGY'
  | 'UPDATE_STRATEGY'
  | 'DELETE_STRATEGY'
  | 'CREATE_ADDON'
  | 'UPDATE_ADDON'
  | 'DELETE_ADDON'
  | 'UPDATE_APPLICATION'
  | 'UPDATE_INSTANCE_BANNERS'
  | 'PROJECT_USER_ACCESS_WRITE'
  | 'PROJECT_GROUP_ACCESS_WRITE'
  | 'READ_PROJECT_API_TOKEN'
  | 'CREATE_PROJECT_API_TOKEN'
  | 'DELETE_PROJECT_API_TOKEN'
  | 'CREATE_API_TOKEN'
  | 'READ_API_TOKEN'
  | 'DELETE_API_TOKEN'
  | 'CLIENT'
  | 'FRONTEND';

/**
 * What a route needs. `PUBLIC`: no credential at all (health, docs, password check).
 * `NONE`: any authenticated admin-API caller, no specific permission (Unleash's NONE).
 * `SDK`: a client or a frontend token (OpenFeature OFREP serves both kinds of SDK).
 */
export type RoutePermission = 'PUBLIC' | 'NONE' | 'SDK' | Permission;

export interface Grant {
  permission: Permission;
  project?: string;
  environment?: string;
}

/** Who the service records as the author of what it does by itself (jobs), as Unleash does; it holds no permission. */
export const SYSTEM: Principal = {
  name: 'unleash_system_user',
  userId: -1337,
  kind: 'admin-token',
  grants: [],
};

/** The `userId` of API tokens (events' `createdByUserId`), as in Unleash. */
export const TOKEN_USER_ID = -42;

export interface Principal {
  /** Shown as `createdBy` on events. */
  name: string;
  /** Shown as `createdByUserId` on events; admin API tokens are -42 as in Unleash. */
  userId: number;
  kind: 'admin-token' | 'client-token' | 'frontend-token' | 'user';
  grants: Grant[];
  /** SDK tokens: the projects (`*` = all) and the environment whose flags they receive. */
  scope?: { projects: string[]; environment: string };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: RoutePermission;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Whether `principal` came from the session cookie (not an Authorization header): same-origin.ts. */
    bySession: boolean;
  }
}

/**
 * `scope`: what the credential's reads belong to (the request), so that they share its change
 * version with the rest of the request's reads (read-cache.ts, `ReadCache.of`).
 */
export type ResolvePrincipal = (secret: string, scope?: object) => Promise<Principal | null>;

/** How callers are recognised; the slices that own credentials provide these. */
export interface Authenticators {
  /** The Authorization header's credential (API token or personal access token). */
  header: ResolvePrincipal;
  /**
   * The principal of a header credential this process holds in memory right now (what `header`
   * would resolve at once), else undefined: lets the common request skip every promise.
   */
  known?: (secret: string) => Principal | undefined;
  /** A login session, from the cookie named `sessionCookie`. */
  session: ResolvePrincipal;
  sessionCookie: string;
  /**
   * Where people sign in with a password; 401s for want of a credential then carry it as Unleash's
   * do (`type`, `path`, `defaultHidden`), which Unleash's web UI reads to draw its login form.
   */
  loginPath?: string;
  /** The project of a flag, for routes that name a flag but no project. */
  projectOfFlag: (name: string) => Promise<string | undefined>;
}

const CLIENT_PERMISSIONS = new Set<RoutePermission>(['CLIENT', 'FRONTEND', 'SDK']);

/** Whether the principal may do `needed` on the given project/environment. */
export function allows(
  principal: Pick<Principal, 'grants'>,
  needed: Permission,
  project?: string,
  environment?: string,
) {
  return principal.grants.some(
    (g) =>
      (g.permission === 'ADMIN' || g.permission === needed) &&
      (!g.project || g.project === '*' || g.project === project) &&
      (!g.environment || g.environment === '*' || g.environment === environment),
  );
}

function credential(request: FastifyRequest): string | undefined {
  // OFREP clients may send the token as `X-API-Key` instead (SDK routes only).
  const apiKey = request.headers['x-api-key'];
  const header =
    request.headers.authorization ??
    (request.routeOptions.config.permission === 'SDK' && typeof apiKey === 'string' ? apiKey : undefined);
  return header ? headerSecret(header) : undefined;
}

/** The secret of an Authorization header: "Bearer <token>" in any letter case, or the bare token as Unleash SDKs send it. */
export function headerSecret(header: string): string | undefined {
  const value = /^bearer /i.test(header) ? header.slice(7) : header;
  return value.trim() || undefined;
}

/**
 * Authentication then authorisation, in the onRequest phase so that 401 and 403 come before the
 * body is read (415, 400). Every route must declare `config.permission`: slices cannot compile
 * without one (platform/http/routes.ts), and `registerAuth` refuses to start an app with a route
 * that has none.
 */
export function registerAuth(app: FastifyInstance, auth: Authenticators) {
  app.decorateRequest('principal', null);
  app.decorateRequest('bySession', false);

  // The second net behind the typed route methods (platform/http/routes.ts): checked once every
  // route is registered, so that a plugin's routes can get theirs from a hook of their own context.
  const declared: { method: unknown; url: string; config?: { permission?: RoutePermission } }[] = [];
  app.addHook('onRoute', (route) => {
    declared.push(route);
  });
  app.addHook('onReady', async () => {
    const missing = declared.filter((route) => !route.config?.permission);
    if (missing.length > 0) {
      const names = missing.map((route) => `${route.method} ${route.url}`).join(', ');
      throw new Error(`routes that declare no permission: ${names}`);
    }
  });

  const loginRequired = (message: string) =>
    auth.loginPath === undefined
      ? new AppError('AuthenticationRequired', message)
      : new AppError('AuthenticationRequired', message, undefined, {
          type: 'password',
          path: auth.loginPath,
          defaultHidden: false,
        });

  /** Who the caller is, then `authorise`: the path of a credential not held in memory. */
  const authenticate = async (request: FastifyRequest, permission: Exclude<RoutePermission, 'PUBLIC'>) => {
    const secret = credential(request);
    const session = request.cookies?.[auth.sessionCookie];
    if (!secret && !session) {
      throw loginRequired(
        'You must log in to use this API. Your request had no authorization header and no session.',
      );
    }
    // As Unleash: a header that is not valid falls through to the session, if there is one.
    const byHeader = secret ? await auth.header(secret, request) : null;
    const bySession = !byHeader && session ? await auth.session(session, request) : null;
    const principal = byHeader ?? bySession;
    request.bySession = bySession !== null;
    if (!principal) {
      throw loginRequired(
        secret
          ? 'The API token or credential you sent is not valid.'
          : 'Your session has expired or ended. Log in again.',
      );
    }
    await authorise(request, permission, principal);
  };

  /** May `principal` call this route? Synchronous unless the flag's project must be looked up. */
  const authorise = (
    request: FastifyRequest,
    permission: Exclude<RoutePermission, 'PUBLIC'>,
    principal: Principal,
  ): Promise<void> | undefined => {
    request.principal = principal;
    // SDK tokens reach only their own API (client tokens the backend API, frontend tokens the
    // frontend API); every other caller reaches only the admin side.
    const sdkApi = { 'client-token': 'CLIENT', 'frontend-token': 'FRONTEND' }[principal.kind as string];
    if (sdkApi ? sdkApi !== permission && permission !== 'SDK' : CLIENT_PERMISSIONS.has(permission)) {
      throw new AppError(
        'NoAccessError',
        `This ${principal.kind.replace('-', ' ')} cannot be used for this endpoint: it expects a different token type.`,
      );
    }
    // SDK routes serve the token's own scope (principal.scope); the token type was the check.
    if (permission === 'NONE' || permission === 'SDK' || CLIENT_PERMISSIONS.has(permission)) return;
    const params = request.params as Record<string, string | undefined>;
    const environment = params.environment ?? params.environmentId;
    const project = params.projectId ?? params.project;
    const check = (project: string | undefined) => {
      if (!allows(principal, permission, project, environment)) {
        const where = environment ? ` in the "${environment}" environment` : '';
        throw new AppError(
          'NoAccessError',
          `You don't have the required permissions to perform this operation. You need the "${permission}" permission${where}.`,
        );
      }
    };
    // A route that names a flag but no project is checked against the flag's project (users only:
    // API tokens hold ADMIN, which needs no project).
    if (project === undefined && principal.kind === 'user' && params.featureName !== undefined) {
      return auth.projectOfFlag(params.featureName).then(check);
    }
    check(project);
  };

  // A callback hook: a request whose token is held in memory (SDKs polling, scripts) is checked
  // without a single promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const permission = request.routeOptions.config.permission;
    // No permission means no route matched: the not-found handler answers.
    if (!permission || permission === 'PUBLIC') return done();
    const secret = auth.known && credential(request);
    const known = secret ? auth.known?.(secret) : undefined;
    let pending: Promise<void> | undefined;
    try {
      pending = known ? authorise(request, permission, known) : authenticate(request, permission);
    } catch (error) {
      return done(error as Error);
    }
    if (!pending) return done();
    pending.then(() => done(), done);
  });
}

/** The acting principal of a route that required authentication. */
export function actor(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('actor() called on a route without authentication');
  return request.principal;
}
