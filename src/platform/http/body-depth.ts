import type { FastifyInstance } from 'fastify';
import { MAX_JSON_DEPTH, measureJson } from '../json-measure.js';
import { invalidField } from './errors.js';

/**
 * Refuses, with a 400 `ValidationError`, any parsed body nested deeper than MAX_JSON_DEPTH, before
 * schema validation and the handler: whatever parsed it (JSON, or YAML on the import routes), a
 * body that deep would overflow the call stack of a recursive step later (validation,
 * `JSON.stringify` for a jsonb column or an event, `structuredClone`) and end as a 500. The check
 * is iterative and visits each node once, so it costs less than parsing the body did.
 */
export function registerBodyDepth(app: Pick<FastifyInstance, 'addHook'>) {
  app.addHook('preValidation', (request, _reply, done) => {
    const { body } = request;
    if (typeof body === 'object' && body !== null && measureJson(body, { maxDepth: MAX_JSON_DEPTH }).over) {
      done(invalidField('/body', `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`));
    } else done();
  });
}
