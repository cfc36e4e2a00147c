import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorBody } from './errors.js';

const HealthSchema = Type.Object(
  { health: Type.Literal('GOOD', { description: 'Always GOOD when the answer is 200.' }) },
  { description: 'The service works and its database answers.' },
);

/**
 * GET /health (liveness, as Unleash) and GET /ready (readiness): 200 `{health: "GOOD"}` while the
 * database answers, 503 otherwise. No authentication: load balancers and orchestrators call them.
 */
export function registerHealth(app: FastifyInstance, ping: () => Promise<void>) {
  for (const [url, operationId, summary] of [
    ['/health', 'getHealth', 'Is the service alive?'],
    ['/ready', 'getReady', 'Is the service ready to take requests?'],
  ] as const) {
    app.get(
      url,
      {
        config: { permission: 'PUBLIC' },
        schema: {
          tags: ['Operational'],
          operationId,
          summary,
          description: '200 while the database answers, 503 `ServiceUnavailableError` otherwise.',
          response: {
            200: HealthSchema,
            503: Type.Ref('Error', { description: 'The database does not answer.' }),
          },
        },
      },
      async (request, reply) => {
        try {
          await ping();
          return { health: 'GOOD' as const };
        } catch (error) {
          request.log.warn({ err: error }, `${url}: database unavailable`);
          const message = 'The database does not answer.';
          return reply.code(503).send(errorBody('ServiceUnavailableError', message, [{ message }]));
        }
      },
    );
  }
}
