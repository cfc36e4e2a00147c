import fastifyCors from '@fastify/cors';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** A comma-separated origin list (config): `*` anywhere in it means any origin. */
export function parseOrigins(text: string): string[] {
  const origins = text
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  return origins.includes('*') ? ['*'] : origins;
}

/** What one response to a browser carries: the allowed origin, and credentials only for a named one. */
function allowOrigin(origins: string[], origin: string | undefined): string | undefined {
  if (origins[0] === '*') return '*';
  return origin !== undefined && origins.includes(origin) ? origin : undefined;
}

const EXPOSED = 'ETag';
const MAX_AGE_S = 86_400;

/** What an origin list allows, worked out once per list (`allowed` returns the same array while the list is unchanged). */
interface CorsPolicy {
  any: boolean;
  /** `*` in the list (not only first, as `parseOrigins` puts it): @fastify/cors answers `*`. */
  star: boolean;
  origins: string[];
}

const policies = new WeakMap<string[], CorsPolicy>();

function policyOf(origins: string[]): CorsPolicy {
  let policy = policies.get(origins);
  if (!policy) {
    policy = { any: origins[0] === '*', star: origins.includes('*'), origins };
    policies.set(origins, policy);
  }
  return policy;
}

/**
 * The CORS headers of an answer other than a preflight, as @fastify/cors gives them for these
 * options (Vary apart: every such answer also varies on Origin). Also used by answers given
 * before Fastify (src/features/frontend-api/frontend-api.early.ts).
 */
export function corsHeaders(origins: string[], origin: string | undefined): Record<string, string> {
  const policy = policyOf(origins);
  const headers: Record<string, string> = {};
  if (policy.star) headers['access-control-allow-origin'] = '*';
  else if (origin !== undefined && origins.includes(origin)) headers['access-control-allow-origin'] = origin;
  if (!policy.any) headers['access-control-allow-credentials'] = 'true';
  headers['access-control-expose-headers'] = EXPOSED;
  return headers;
}

/** The request's policy, kept by the onRequest hook for the onSend hook of the same request. */
const POLICY = Symbol('corsPolicy');
type WithPolicy = { [POLICY]?: CorsPolicy };

/** `Vary` gains `Origin` as @fastify/cors adds it (kept as is when it already names it or is `*`). */
function addOriginToVary(reply: FastifyReply): void {
  let header = reply.getHeader('vary');
  if (!header) {
    reply.header('Vary', 'Origin');
    return;
  }
  if (header === '*') return;
  if (Array.isArray(header)) header = header.join(', ');
  const text = String(header);
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.includes('*')) reply.header('Vary', '*');
  else if (!names.includes('origin')) reply.header('Vary', `${text}, Origin`);
}

/**
 * CORS for the routes of the calling plugin's context (register it inside a prefixed plugin so it
 * covers only those paths): @fastify/cors answers preflight requests (its `OPTIONS <prefix>*`
 * route is made PUBLIC here, before authentication could refuse a browser's credential-less
 * preflight) and adds the headers to answers. `*` never goes with credentials; named origins are
 * echoed back with `Access-Control-Allow-Credentials: true` and `Vary: Origin`.
 *
 * `allowed` gives the origins per request (`parseOrigins` form), so a change applies without a
 * restart; it is called for every request of the context and must answer from memory.
 *
 * Other requests than OPTIONS get the same headers @fastify/cors would give them (with the options
 * its delegator was given: `origin` the list or `*`, `credentials` for a list, `exposedHeaders`
 * ETag) from a hook of this context that does only that work: @fastify/cors, given options per
 * request, rebuilds and normalises its options object on every request. @fastify/cors itself is
 * registered in a child context, where its hook covers its own OPTIONS route only.
 *
 * Authentication runs in the root context, before this context's hooks, so a 401 or 403 would
 * leave without CORS headers and the browser could not read it: an `onSend` hook adds them to any
 * answer that lacks them.
 */
export async function registerCors(
  app: Pick<FastifyInstance, 'addHook' | 'register'>,
  allowed: () => string[] | Promise<string[]>,
): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && !route.config?.permission) {
      route.config = { ...route.config, permission: 'PUBLIC' };
    }
  });
  // Answers other than preflights: @fastify/cors's headers for these options (see above).
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.method === 'OPTIONS') {
      done();
      return;
    }
    const decide = (origins: string[]) => {
      const policy = policyOf(origins);
      (request as WithPolicy)[POLICY] = policy;
      // A per-request (dynamic) origin option: Vary: Origin in every case.
      addOriginToVary(reply);
      reply.headers(corsHeaders(origins, request.headers.origin));
      done();
    };
    const origins = allowed();
    if (Array.isArray(origins)) decide(origins);
    else origins.then(decide, done);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.hasHeader('access-control-allow-origin')) {
      done(null, payload);
      return;
    }
    const add = (policy: CorsPolicy) => {
      const { any, origins } = policy;
      const allowedOrigin = allowOrigin(origins, request.headers.origin);
      const vary = String(reply.getHeader('vary') ?? '');
      if (!any && !/\borigin\b/i.test(vary)) reply.header('Vary', vary ? `${vary}, Origin` : 'Origin');
      if (allowedOrigin) {
        reply
          .header('Access-Control-Allow-Origin', allowedOrigin)
          .header('Access-Control-Expose-Headers', EXPOSED);
        if (!any) reply.header('Access-Control-Allow-Credentials', 'true');
      }
      done(null, payload);
    };
    const kept = (request as WithPolicy)[POLICY];
    if (kept) return add(kept);
    const origins = allowed();
    if (Array.isArray(origins)) add(policyOf(origins));
    else origins.then((list) => add(policyOf(list)), done);
  });
  // Registered after the hooks above: a child context copies its parent's hooks when it is made.
  await app.register(async (preflight) => {
    await preflight.register(fastifyCors, {
      delegator: async () => {
        const origins = await allowed();
        const any = origins[0] === '*';
        return {
          origin: any ? '*' : origins,
          credentials: !any,
          methods: ['GET', 'POST'],
          exposedHeaders: EXPOSED,
          maxAge: MAX_AGE_S,
          // A bare OPTIONS without Origin is answered like a preflight instead of a text/plain 400.
          strictPreflight: false,
        };
      },
    });
  });
}
