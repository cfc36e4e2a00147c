import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { headerSecret, type Principal } from '../../platform/http/auth.js';
import { corsHeaders } from '../../platform/http/cors.js';
import { answerBeforeFastify, type EarlyAnswer } from '../../platform/http/early-answers.js';
import type { RecordAnswer } from '../../platform/http/metrics.js';
import { quietRequestLog } from '../../platform/http/request-log.js';
import { answerHeaders } from '../../platform/http/server.js';
import { acceptsGzip, matchesEtag } from '../client-api/index.js';
import type { ConfigurationSource } from '../snapshot/index.js';
import { type FrontendAnswer, GZIP_FROM_BYTES } from './frontend-api.payload.js';
import { keptFrontendAnswer, SDK_STALENESS_MS } from './frontend-api.service.js';

export interface FrontendEarlyPorts {
  configuration: ConfigurationSource;
  /** The principal of an Authorization secret held in memory right now, else undefined. */
  known: (secret: string) => Principal | undefined;
  /** The CORS origins of the frontend API (`parseOrigins` form); a promise: not known at once. */
  origins: () => string[] | Promise<string[]>;
  now: () => Date;
  /** Counts the answer in the HTTP metrics, as Fastify's answers are counted. */
  record: RecordAnswer;
}

/**
 * A browser SDK polling with the context of its last poll, answered before Fastify as the SDK
 * poll of the client API is (docs/adr/0018): a frontend SDK asks every few seconds with the same
 * query string, and the route keeps that answer (frontend-api.service.ts) until a change or a
 * date bound. Taken only when all is known at once: a GET of `/api/frontend` (or `/all` when
 * served) with a query string the route kept an answer for, for this client address, a frontend
 * token held in memory, the CORS origins and a current configuration. Anything else (a first
 * poll, another context, HEAD, a body, a session cookie alone, a stale configuration) goes to
 * Fastify. The answer is the route's, header for header (frontend-api.early.test.ts).
 *
 * The client address is the socket's: under TRUST_PROXY (the address comes from
 * X-Forwarded-For, as Fastify reads it) the early answer is not installed.
 */
export function frontendEarly(
  ports: FrontendEarlyPorts,
  options: { all: boolean; headers: Record<string, string> },
): EarlyAnswer {
  const paths = new Map<string, boolean>([['/api/frontend', false]]);
  const made = new MadeHeaders(options.headers);
  if (options.all) paths.set('/api/frontend/all', true);
  return (request, response) => {
    if (request.method !== 'GET') return false;
    const url = request.url ?? '';
    const query = url.indexOf('?');
    if (query < 0) return false;
    const path = url.slice(0, query);
    const includeDisabled = paths.get(path);
    const { headers } = request;
    const authorization = headers.authorization;
    if (includeDisabled === undefined || !authorization) return false;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const started = performance.now();
    const secret = headerSecret(authorization);
    const principal = secret === undefined ? undefined : ports.known(secret);
    if (principal?.kind !== 'frontend-token') return false;
    const origins = ports.origins();
    const clientIp = request.socket.remoteAddress;
    if (!Array.isArray(origins) || clientIp === undefined) return false;
    const config = ports.configuration.peek(SDK_STALENESS_MS);
    if (!config) return false;
    const sent = url.slice(query + 1);
    const time = ports.now().getTime();
    const answer = keptFrontendAnswer(config, principal, clientIp, sent, includeDisabled, time);
    if (!answer) return false;
    const status = matchesEtag(headers['if-none-match'], answer.etag) ? 304 : 200;
    const gzip =
      status === 200 && answer.bytes.length >= GZIP_FROM_BYTES && acceptsGzip(headers['accept-encoding']);
    const body = status === 304 ? undefined : gzip ? answer.gzipped() : answer.bytes;
    const written = made.get(origins, headers.origin, answer, status, gzip, body?.length);
    response.writeHead(status, written);
    response.end(body);
    ports.record('GET', path, status, (performance.now() - started) / 1000);
    return true;
  };
}

/**
 * Puts `frontendEarly` in front of the app's Fastify (the service's and an edge replica's); not
 * when the log asks for a line per SDK request (which only Fastify writes), nor under TRUST_PROXY.
 */
export function answerFrontendEarly(
  app: FastifyInstance,
  config: Config,
  ports: FrontendEarlyPorts,
  options: { all: boolean },
): void {
  if (!quietRequestLog(config.LOG_LEVEL)({ url: '/api/frontend?' })) return;
  if (config.TRUST_PROXY.trim() !== 'false') return;
  answerBeforeFastify(app, frontendEarly(ports, { ...options, headers: answerHeaders(config) }));
}

/**
 * The headers of the last answers given, made once each (a few per context and configuration
 * revision), in the order the route's hooks and handler set them: security, CORS, the answer's.
 */
class MadeHeaders {
  private made = new Map<string, Record<string, string | number>>();
  private origins: string[] | undefined;

  constructor(private readonly base: Record<string, string>) {}

  get(
    origins: string[],
    origin: string | undefined,
    answer: FrontendAnswer,
    status: number,
    gzip: boolean,
    length: number | undefined,
  ): Record<string, string | number> {
    if (origins !== this.origins || this.made.size >= 256) {
      this.made.clear();
      this.origins = origins;
    }
    const cors = corsHeaders(origins, origin);
    const key = `${answer.etag}|${status}|${gzip}|${cors['access-control-allow-origin'] ?? ''}`;
    let headers = this.made.get(key);
    if (!headers) {
      headers = {
        ...this.base,
        vary: 'Origin, Accept-Encoding',
        ...cors,
        etag: answer.etag,
        'cache-control': 'no-cache',
      };
      if (length !== undefined) {
        headers['content-type'] = 'application/json; charset=utf-8';
        if (gzip) headers['content-encoding'] = 'gzip';
        headers['content-length'] = length;
      }
      this.made.set(key, headers);
    }
    return headers;
  }
}
