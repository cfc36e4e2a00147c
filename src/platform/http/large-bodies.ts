import type { FastifyInstance } from 'fastify';

/**
 * Above this many characters a string answer is sent as bytes. Measured on Node 20 (a bare
 * Fastify route, 8 connections, bench/RESULTS.md "Session 14"): up to 128 KB a string is written
 * as fast as the same bytes in a Buffer made for it, or faster (no copy); from about 130 KB on,
 * Node spends several times the CPU writing the string (170 KB: 1.1 ms against 0.3 ms per answer).
 */
export const LARGE_BODY_CHARS = 128 * 1024;

/**
 * Large JSON answers built per request (the playground, long lists) leave as bytes: the string
 * is encoded once here, and Node writes the Buffer without its slow path for long strings.
 * Answers kept for many requests are kept as bytes already (see sendSerialized in routes.ts).
 */
export function registerLargeBodies(app: FastifyInstance) {
  app.addHook('onSend', (_request, _reply, payload, done) => {
    if (typeof payload === 'string' && payload.length > LARGE_BODY_CHARS) done(null, Buffer.from(payload));
    else done(null, payload);
  });
}
