import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

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
 * Authentication runs in the root context, before this context's hooks, so a 401 or 403 would
 * leave without CORS headers and the browser could not read it: an `onSend` hook adds them to any
 * answer that lacks them.
 */
export async function registerCors(
  app: Pick<FastifyInstance, 'addHook' | 'register'>,
  allowed: () => Promise<string[]>,
): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && !route.config?.permission) {
      route.config = { ...route.config, permission: 'PUBLIC' };
    }
  });
  await app.register(fastifyCors, {
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
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('access-control-allow-origin')) {
      const origins = await allowed();
      const any = origins[0] === '*';
      const allowedOrigin = allowOrigin(origins, request.headers.origin);
      const vary = String(reply.getHeader('vary') ?? '');
      if (!any && !/\borigin\b/i.test(vary)) reply.header('Vary', vary ? `${vary}, Origin` : 'Origin');
      if (allowedOrigin) {
        reply
          .header('Access-Control-Allow-Origin', allowedOrigin)
          .header('Access-Control-Expose-Headers', EXPOSED);
        if (!any) reply.header('Access-Control-Allow-Credentials', 'true');
      }
    }
    return payload;
  });
}
