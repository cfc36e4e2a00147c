import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Answers that are not HTML (JSON, YAML, metrics, event streams, assets) load nothing and are
 * never framed.
 */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * The web UI and Swagger UI (`/docs`): scripts and everything else from this origin only. Styles
 * also inline, because Mantine and Swagger UI write `<style>` elements and `style` attributes at
 * run time; `data:` images and fonts for icons. No `upgrade-insecure-requests`: a service reached
 * over plain http (an internal address) must keep loading its own assets.
 */
export const HTML_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** HSTS for a year; no includeSubDomains or preload: the service does not own its parent domain. */
export const HSTS = 'max-age=31536000';

/**
 * The headers every answer that is not a page carries; also written by the answers made on the
 * raw socket before Fastify has a reply (server.ts: HTTP parser errors, bad percent-escapes).
 */
export function securityHeaders(options: { hsts: boolean }): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // Reset and invite links carry their secret in the URL: never send it to another site.
    'referrer-policy': 'no-referrer',
    'content-security-policy': API_CSP,
    ...(options.hsts ? { 'strict-transport-security': HSTS } : {}),
  };
}

/**
 * Security headers on every answer, errors and 404s included. Set in `onRequest` (before any hook
 * that can refuse the request, so 401s carry them, and event streams copy them from the reply),
 * with the HTML policy swapped in on `onSend` when the answer is a page.
 *
 * `hsts`: send Strict-Transport-Security. Only when the service is known to be reached over https
 * (PUBLIC_URL is https): on plain http browsers ignore it, and a service that also answers on
 * http (a health check, an internal address) must not be pinned to https by accident.
 *
 * Neither Node nor Fastify sends `Server` or `X-Powered-By`; they are removed anyway, so that
 * no plugin can announce a product or a version.
 */
export function registerSecurityHeaders(app: FastifyInstance, options: { hsts: boolean }) {
  const base = securityHeaders(options);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(base);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html')) {
      reply.header('content-security-policy', HTML_CSP);
    }
    // Only when present: deleting an absent key still costs the reply's header object its fast shape.
    if (reply.hasHeader('server')) reply.removeHeader('server');
    if (reply.hasHeader('x-powered-by')) reply.removeHeader('x-powered-by');
    done(null, payload);
  });
}

/** Query parameters whose name says it holds a secret (`?token=`, `?password=`, `apiKey`...). */
const SECRET_PARAM = /token|secret|password|passwd|key|code|session|invite/i;

/** Path segments that are secrets: the one after these prefixes (API token, invite link). */
const SECRET_SEGMENT = /(\/api-tokens\/|\/invite-link\/tokens\/|\/invite\/)[^/?#]+/g;

/**
 * The URL as it may be logged: secret path segments (`/api/admin/api-tokens/<secret>`,
 * `/invite/<secret>/signup`) and secret query values (`/auth/reset/validate?token=...`) replaced
 * by `[redacted]`. Plain string work for the query (no backtracking on a hostile URL).
 */
export function redactUrl(url: string): string {
  let out =
    url.includes('/api-tokens/') || url.includes('/invite')
      ? url.replace(SECRET_SEGMENT, '$1[redacted]')
      : url;
  const query = out.indexOf('?');
  if (query < 0) return out;
  const pairs = out.slice(query + 1).split('&');
  let changed = false;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i] ?? '';
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    let name = pair.slice(0, equals);
    try {
      name = decodeURIComponent(name);
    } catch {
      // A malformed escape: judged as written.
    }
    if (SECRET_PARAM.test(name)) {
      pairs[i] = `${pair.slice(0, equals)}=[redacted]`;
      changed = true;
    }
  }
  if (changed) out = `${out.slice(0, query)}?${pairs.join('&')}`;
  return out;
}

/**
 * The logger's redaction (Fastify `logger` options): the request line is logged with `redactUrl`
 * and without headers (Fastify's default fields); credentials and secret body fields are censored
 * wherever something logs a request, a reply, headers or a body.
 */
export const logRedaction = {
  redact: {
    paths: [
      'req.headers.authorization',
      'req.headers.cookie',
      'req.headers["x-api-key"]',
      'res.headers["set-cookie"]',
      'headers.authorization',
      'headers.cookie',
      'headers["x-api-key"]',
      'headers["set-cookie"]',
      'body.password',
      'body.token',
      'body.secret',
      '*.password',
      '*.secret',
      '*.token',
    ],
    censor: '[redacted]',
  },
  serializers: {
    req: (request: FastifyRequest) => ({
      method: request.method,
      url: redactUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    }),
  },
};

/**
 * A route's `config.rateLimit` (@fastify/rate-limit, registered app-wide with `global: false`):
 * `perMinute` requests per minute per caller, the authenticated principal (its kind, user id and
 * name: route-level hooks run after authentication) or else the client address. 429 with
 * Retry-After beyond it. Each route counts on its own.
 */
export const perCallerRateLimit = (perMinute: number) => ({
  max: perMinute,
  timeWindow: 60_000,
  keyGenerator: (request: FastifyRequest) => {
    const caller = request.principal;
    return caller ? `${caller.kind}:${caller.userId}:${caller.name}` : `ip:${request.ip}`;
  },
});
