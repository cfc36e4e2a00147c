import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Check the origin of this route's writes even without a session (login, logout). */
    sameOrigin?: boolean;
  }
}

/** Methods that change nothing: never checked (links, images and CORS preflights use them). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origin of a URL (`scheme://host[:port]`, default port left out), or null for `null` or garbage. */
function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * Where the browser says the request was made: `Origin`, else `Referer`; undefined when it says
 * neither, null when what it says is `null` or not a URL.
 */
function claimedOrigin(request: FastifyRequest): string | null | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined) return originOf(origin);
  const referer = request.headers.referer;
  return referer === undefined ? undefined : originOf(referer);
}

/**
 * Cross-site request forgery (issue 43, finding 4). The session cookie is SameSite=Lax, which
 * another port of the same host (the same site) still receives, and body-less POSTs accept any
 * content type (Unleash scripts send them), so a plain form on such a page could write. A write
 * (any method but GET, HEAD, OPTIONS) authenticated by the session cookie, or to a route with
 * `config.sameOrigin` (login, logout), is refused with 403 when the browser says it comes from
 * another origin than the service's: PUBLIC_URL's when set, else the request's own scheme and
 * Host (Fastify believes X-Forwarded-Proto/Host only under TRUST_PROXY).
 *
 * Requests with neither Origin nor Referer pass: browsers send Origin with every cross-site POST,
 * PUT, PATCH and DELETE (forms included), so a request without one is not a forged browser
 * request, but a script's or a tool's holding the cookie. Requests with an Authorization
 * credential are never checked: a page on another site cannot add that header without CORS, and
 * the frontend API's CORS callers use tokens.
 *
 * Registered after `registerAuth` (auth.ts), whose hook tells which requests came by session.
 */
export function registerSameOrigin(app: FastifyInstance, options: { publicUrl?: string | undefined }) {
  const fixed = options.publicUrl === undefined ? undefined : originOf(options.publicUrl);
  app.addHook('onRequest', (request, _reply, done) => {
    if (SAFE_METHODS.has(request.method)) return done();
    if (!request.bySession && !request.routeOptions.config.sameOrigin) return done();
    const claimed = claimedOrigin(request);
    if (claimed === undefined) return done();
    const own = fixed ?? originOf(`${request.protocol}://${request.host}`);
    if (claimed !== null && claimed === own) return done();
    done(
      new AppError(
        'NoAccessError',
        `This request came from another site (${claimed ?? 'an opaque origin'}), not from ${own ?? 'this service'}: signed-in changes are accepted only from the service's own pages.`,
      ),
    );
  });
}
