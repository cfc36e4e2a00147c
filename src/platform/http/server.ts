import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { type Config, trustProxy } from '../../config.js';
import { registerBodyDepth } from './body-depth.js';
import { acceptEmptyBodies } from './empty-body.js';
import { clientErrorResponse, frameworkErrorBody, registerErrorHandling } from './error-handler.js';
import { registerLargeBodies } from './large-bodies.js';
import { LINGER_MS, lingerBytes, registerLingeringClose } from './lingering-close.js';
import { RequestLog } from './request-log.js';
import { ErrorSchema } from './schemas.js';
import { logRedaction, registerSecurityHeaders, securityHeaders } from './security-headers.js';
import { lazySerializers } from './serialization.js';
import { registerValidation } from './validation.js';

/** Whether answers carry Strict-Transport-Security: only when the service is known to be on https. */
const hstsOf = (config: Config) => config.PUBLIC_URL?.startsWith('https://') ?? false;

/** The headers every answer of the service carries, for answers written without Fastify's reply. */
export const answerHeaders = (config: Config) => securityHeaders({ hsts: hstsOf(config) });

/**
 * The HTTP server with the service's conventions, before any route: JSON errors for everything
 * (validation, parser failures, bad percent-escapes, unknown paths), JSON or empty bodies only
 * (nested at most MAX_JSON_DEPTH levels),
 * security headers on every answer, secrets kept out of the log.
 * The service (app.ts) and an edge replica (src/edge/) both start from it.
 */
/**
 * Serving under a path prefix (an edge replica's EDGE_BASE_PATH): a request under it is routed
 * without it; any other gets the unknown-path 404.
 */
function underBasePath(basePath: string | undefined) {
  const base = basePath?.replace(/\/+$/, '');
  if (!base) return undefined;
  return (request: { url?: string }) => {
    const url = request.url ?? '/';
    if (url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`)) {
      const rest = url.slice(base.length);
      return rest.startsWith('/') ? rest : `/${rest}`;
    }
    return `/__outside-base-path__${url}`;
  };
}

export function createServer(config: Config, options: { basePath?: string } = {}) {
  const rewriteUrl = underBasePath(options.basePath);
  const hsts = hstsOf(config);
  // Also on the answers written before Fastify has a reply (below).
  const headers = answerHeaders(config);
  const app = Fastify({
    // Secrets never reach the log: redacted URLs, headers and body fields (security-headers.ts).
    logger: { level: config.LOG_LEVEL, ...logRedaction },
    // One line per answered request; none for SDK polls and health probes below debug.
    logController: new RequestLog(config.LOG_LEVEL),
    bodyLimit: config.BODY_LIMIT,
    trustProxy: trustProxy(config),
    // Node's parser errors (oversized headers, garbage) still get a JSON error body.
    clientErrorHandler: (error, socket) => {
      if (socket.writable) socket.end(clientErrorResponse(error, headers));
      else socket.destroy();
    },
    routerOptions: { maxParamLength: 500 },
    ...(rewriteUrl && { rewriteUrl }),
    // Malformed percent-escapes in the path are rejected before routing; answer them as JSON too.
    frameworkErrors: (error, _request, reply) => {
      reply.raw.writeHead(400, { ...headers, 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end(JSON.stringify(frameworkErrorBody(error)));
    },
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: lazySerializers() },
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerValidation(app);
  registerErrorHandling(app);
  // Bodies are JSON or nothing: no text/plain fallback, so anything else is a 415.
  app.removeContentTypeParser('text/plain');
  acceptEmptyBodies(app);
  registerBodyDepth(app);
  app.addSchema(ErrorSchema);
  // Before any hook that can refuse the request: 401s and 404s carry them too.
  registerSecurityHeaders(app, { hsts });
  registerLargeBodies(app);
  // An answer given while the body is still arriving (413, 401...) reaches the client whole.
  registerLingeringClose(app, { bytes: lingerBytes, ms: LINGER_MS });
  return app;
}
