import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';

/**
 * An operation that takes no body accepts an empty one whatever its content type: `fetch` and many
 * scripts send `Content-Type: text/plain` (or `application/json`) with an empty body to `…/on`,
 * and Unleash answers those 200. The content type of a request that declares an empty body
 * (`Content-Length: 0`, or neither a length nor chunked encoding, as `curl -X POST` sends) is dropped before Fastify picks a body parser, so such a request reaches the
 * handler as one without a body. A non-empty body of another type is still a 415, and routes that
 * take a body keep the strict rules.
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function acceptEmptyBodies(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.schema?.body || !methods.some((method) => BODY_METHODS.has(method))) return;
    const existing = route.onRequest;
    const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    route.onRequest = [dropContentTypeOfEmptyBody, ...hooks];
  });
}

const dropContentTypeOfEmptyBody: onRequestHookHandler = (request: FastifyRequest, _reply, done) => {
  const { headers } = request;
  const length = headers['content-length'];
  if ((length === undefined || length === '0') && headers['transfer-encoding'] === undefined) {
    delete headers['content-type'];
  }
  done();
};
