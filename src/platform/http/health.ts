import type { FastifyInstance } from 'fastify';
import { errorBody } from './errors.js';

/** GET /health: 200 while the database answers, 503 otherwise. No authentication. */
export function registerHealth(app: FastifyInstance, ping: () => Promise<void>) {
  app.get('/health', { config: { permission: 'PUBLIC' }, schema: { hide: true } }, async (request, reply) => {
    try {
      await ping();
      return { health: 'GOOD' };
    } catch (error) {
      request.log.warn({ err: error }, 'health check: database unavailable');
      const message = 'The database does not answer.';
      return reply.code(503).send(errorBody('ServiceUnavailableError', message, [{ message }]));
    }
  });
}
