import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * Answers a request before Fastify sees it and returns true, or returns false (having written
 * nothing) to leave the request to Fastify. Meant for the few answers that are both very frequent
 * and fully known without routing, hooks or a body: the SDKs' 304 (docs/adr/0018).
 */
export type EarlyAnswer = (request: IncomingMessage, response: ServerResponse) => boolean;

/**
 * Puts `answer` in front of Fastify's handler on the app's Node server (Node adds the handler a
 * server is created with as its one `request` listener). `app.inject` does not pass through the
 * server: what an early answer says must be what Fastify would say, and the tests compare them.
 */
export function answerBeforeFastify(app: FastifyInstance, answer: EarlyAnswer): void {
  const server = app.server;
  const listeners = server.listeners('request');
  const [fastify] = listeners;
  if (listeners.length !== 1 || !fastify) {
    throw new Error(`expected Fastify's one request listener, found ${listeners.length}`);
  }
  const handle = fastify as (request: IncomingMessage, response: ServerResponse) => void;
  // Once the app closes, Fastify answers what is still arriving on open connections (503, as it
  // is configured): the early answer steps aside.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  server.removeListener('request', handle);
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    let answered = false;
    if (!closing) {
      try {
        answered = answer(request, response);
      } catch {
        // Not the process's end, as an uncaught throw in a listener would be: Fastify takes the
        // request (and answers whatever failed here with its JSON error), unless something was
        // already written.
        if (response.headersSent) {
          response.destroy();
          return;
        }
      }
    }
    if (!answered) handle(request, response);
  });
}
