import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { headerSecret, type Principal } from '../../platform/http/auth.js';
import { answerBeforeFastify, type EarlyAnswer } from '../../platform/http/early-answers.js';
import type { RecordAnswer } from '../../platform/http/metrics.js';
import { quietRequestLog } from '../../platform/http/request-log.js';
import { answerHeaders } from '../../platform/http/server.js';
import type { ConfigurationSource } from '../snapshot/index.js';
import { acceptsGzip, matchesEtag, validatorHeaders } from './client-api.payload.js';
import { currentClientFeatures } from './client-api.service.js';

export interface NotModifiedPorts {
  configuration: ConfigurationSource;
  /** The principal of an Authorization secret held in memory right now, else undefined. */
  known: (secret: string) => Principal | undefined;
  /** The headers every answer of the service carries (security headers). */
  headers: Record<string, string>;
  /** Counts the answer in the HTTP metrics, as Fastify's answers are counted. */
  record: RecordAnswer;
}

const PATH = '/api/client/features';

/**
 * The SDK poll that finds nothing new, answered before Fastify (docs/adr/0018): the most frequent
 * request a service gets (every SDK instance, every few seconds) and one whose answer needs no
 * routing, body or hook. Taken only when everything is known at once: a GET of exactly the path
 * with an If-None-Match, a client token this process holds in memory, a configuration current
 * enough to answer, and a match. Anything else (no or unknown token, another token type, a stale
 * configuration, a changed payload, a query string, HEAD) goes to Fastify, which answers as before.
 * The answer is the one Fastify's route gives: same status and headers (test/early-304.test.ts).
 */
export function clientNotModified(ports: NotModifiedPorts): EarlyAnswer {
  // The headers of the last ETags answered, made once each (a few per configuration revision).
  const made = new Map<string, Record<string, string>>();
  const headersFor = (etag: string) => {
    let headers = made.get(etag);
    if (!headers) {
      if (made.size >= 64) made.clear();
      headers = { ...ports.headers, ...validatorHeaders(etag) };
      made.set(etag, headers);
    }
    return headers;
  };
  return (request, response) => {
    const { headers } = request;
    const ifNoneMatch = headers['if-none-match'];
    const authorization = headers.authorization;
    if (request.method !== 'GET' || request.url !== PATH || !ifNoneMatch || !authorization) return false;
    const started = performance.now();
    const secret = headerSecret(authorization);
    const principal = secret === undefined ? undefined : ports.known(secret);
    if (principal?.kind !== 'client-token') return false;
    const gzip = acceptsGzip(headers['accept-encoding']);
    const spec = headers['unleash-client-spec'];
    const specHeader = typeof spec === 'string' ? spec : undefined;
    const payload = currentClientFeatures(ports.configuration, principal, specHeader, gzip);
    if (!payload) return false;
    const etag = gzip ? payload.gzipEtag : payload.etag;
    if (!matchesEtag(ifNoneMatch, etag)) return false;
    response.writeHead(304, headersFor(etag));
    response.end();
    ports.record('GET', PATH, 304, (performance.now() - started) / 1000);
    return true;
  };
}

/**
 * Puts `clientNotModified` in front of the app's Fastify (the service's and an edge replica's),
 * with the headers every answer carries; not when the log level asks for a line per SDK request,
 * which only Fastify writes.
 */
export function answerNotModifiedEarly(
  app: FastifyInstance,
  config: Config,
  ports: Omit<NotModifiedPorts, 'headers'>,
): void {
  if (!quietRequestLog(config.LOG_LEVEL)({ url: PATH })) return;
  answerBeforeFastify(app, clientNotModified({ ...ports, headers: answerHeaders(config) }));
}
