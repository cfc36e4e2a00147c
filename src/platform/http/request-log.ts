import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Config } from '../../config.js';

/** The paths SDKs poll and report to: many requests a minute per SDK instance, all alike. */
const SDK_PATH = /\/api\/(?:client|frontend)(?:[/?]|$)|\/ofrep\//;

/** Liveness and readiness: a load balancer or an orchestrator asks every few seconds. */
const PROBE_PATH = /^\/(?:health|ready)(?:\?|$)/;

/**
 * Whether a request's log line is left out: SDK requests and health probes, unless the level is
 * debug or trace. Thousands of SDKs polling every 15 s, and a load balancer asking every few
 * seconds, would fill the log with identical lines and cost a write each (Unleash does not log
 * SDK requests either); their errors are still logged by the error handler. Admin and UI requests
 * are logged.
 */
export function quietRequestLog(level: Config['LOG_LEVEL']): (request: { url: string }) => boolean {
  if (level === 'debug' || level === 'trace') return () => false;
  return (request) => SDK_PATH.test(request.url) || PROBE_PATH.test(request.url);
}

/**
 * One line per request, written once it is answered (Fastify writes two, "incoming request" and
 * "request completed"): `msg: "request completed"`, `reqId`, `req` (method, the URL with its
 * secrets redacted, host, address: the `req` serializer of security-headers.ts), `res.statusCode`
 * and `responseTime` in milliseconds. A request whose connection closed before the answer was
 * written (the client went away, an event stream ended) gets one line too: "request aborted".
 */
export class RequestLog extends LogController {
  constructor(level: Config['LOG_LEVEL']) {
    super({ disableRequestLogging: quietRequestLog(level) });
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request aborted');
    });
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) request.log.error({ ...fields, err: error }, 'request errored');
    else request.log.info(fields, 'request completed');
  }
}
