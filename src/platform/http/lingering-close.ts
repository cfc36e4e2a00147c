import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How long, after an answer, the rest of a refused body is read at most (a slow sender's bound). */
export const LINGER_MS = 10_000;

/** The fewest bytes of a refused body read after the answer: the 6 and 20 MiB bodies of issue 44. */
export const LINGER_MIN_BYTES = 64 * 1024 * 1024;

/** The bytes read after an answer for a route whose body limit is `bodyLimit` (BODY_LIMIT, IMPORT_BODY_LIMIT). */
export const lingerBytes = (bodyLimit: number) => Math.max(LINGER_MIN_BYTES, 2 * bodyLimit);

export interface LingerBounds {
  /** The most bytes of the body read and thrown away after the answer, for a route's body limit. */
  bytes: (bodyLimit: number) => number;
  /** The most milliseconds spent so after the answer has been written. */
  ms: number;
}

/**
 * Lingering close (issue 44). An answer given before the body has all arrived (413 while the body
 * is parsed, or a 401, 403, 415 from a hook that never reads it) leaves the client still sending.
 * Closing the socket then, with its unread bytes, makes the kernel reset the connection: the
 * client's next write fails (EPIPE, "fetch failed") and the answer it has not read yet is thrown
 * away with the connection, so it never sees the 413.
 *
 * Instead the rest of the body is read and thrown away, up to `bounds` (bytes and time after the
 * answer), before the socket closes; the close itself sends the answer first, then FIN. Beyond a
 * bound the socket is destroyed at once: a client sending that much more is not owed the answer.
 * When the answer keeps the connection alive (a hook's 401 or 415: Node would read the rest of the
 * body itself, without end), the same bounds apply, and the connection serves the next request
 * once the body has ended.
 */
export function registerLingeringClose(app: FastifyInstance, bounds: LingerBounds) {
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    // A connection only (`app.inject` has none to close); `complete`: Node has parsed the body.
    if (
      raw.socket instanceof Socket &&
      !raw.complete &&
      !raw.readableEnded &&
      hasBody(raw) &&
      !raw.destroyed
    ) {
      const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0;
      linger(raw, raw.socket, reply.raw, bounds.bytes(limit), bounds.ms);
    }
    done(null, payload);
  });
}

/** Whether the request says a body follows (a bodiless GET may be answered before Node marks it complete). */
const hasBody = (request: IncomingMessage) =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;

function linger(
  request: IncomingMessage,
  socket: Socket,
  response: NodeJS.EventEmitter,
  maxBytes: number,
  maxMs: number,
) {
  let read = 0;
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  // Read now (a hook's refusal never started to): Node would otherwise stop reading the socket
  // once its buffer fills, and the answer could wait behind a sender that cannot go on.
  request.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > maxBytes) socket.destroy();
  });
  const finish = () => {
    ended = true;
    clearTimeout(timer);
    // The prototype's again, for the requests that follow on a kept-alive connection.
    if (Object.hasOwn(socket, 'destroySoon')) {
      delete (socket as Partial<Socket>).destroySoon;
      if (closing) socket.destroySoon();
    }
  };
  request.once('end', finish);
  socket.once('close', () => clearTimeout(timer));
  let closing = false;
  // Node closes a connection whose answer says `Connection: close` (Fastify says so after a body
  // error) with socket.destroySoon(), right after the answer: the write side ends (the answer,
  // then FIN), and the socket is destroyed only once the body has been read.
  socket.destroySoon = () => {
    closing = true;
    if (socket.writable) socket.end();
  };
  response.once('finish', () => {
    if (ended) return;
    timer = setTimeout(() => socket.destroy(), maxMs);
    // Never what alone keeps the process running: the socket is.
    timer.unref();
  });
}
