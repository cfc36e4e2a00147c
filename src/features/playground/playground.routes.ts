import { Readable } from 'node:stream';
import type { Deps } from '../../deps.js';
import { routes } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ConfigurationCache } from '../snapshot/index.js';
import {
  AdvancedPlaygroundBody,
  AdvancedPlaygroundResponse,
  PlaygroundBody,
  PlaygroundResponse,
} from './playground.schemas.js';
import { advancedPlaygroundJson, planAdvancedPlayground, playgroundJson } from './playground.service.js';

export const playgroundRoutes = (deps: Deps, configuration: ConfigurationCache) =>
  routes(async (app) => {
    app.post(
      '/api/admin/playground',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Playground'],
          operationId: 'getPlayground',
          summary: 'Evaluate an Unleash context against a set of environments and projects.',
          description:
            'Evaluates every matching flag in one environment for one context, reporting each strategy, constraint and segment. Deprecated: use the advanced playground.',
          deprecated: true,
          body: PlaygroundBody,
          response: { 200: PlaygroundResponse, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        reply.header('Deprecation', 'true');
        // The admin playground reads its own writes: check the revision first.
        const config = await configuration.get({ fresh: true });
        // JSON text made by the service (playgroundJson), as the advanced playground's: each report
        // from text kept per compiled strategy (report-json.ts), where the schema's serialiser built
        // a deep concatenation that Node then flattened to count its bytes (13 % of the CPU of a
        // playground load, bench/RESULTS.md). The stored data carries no undeclared fields (writes
        // keep only declared ones). A large answer leaves as bytes (platform/http/large-bodies.ts).
        // The response schema documents the shape.
        const answer = playgroundJson(config, request.body, deps.now());
        return reply.type('application/json; charset=utf-8').send(answer as never);
      },
    );

    app.post(
      '/api/admin/playground/advanced',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Playground'],
          operationId: 'getAdvancedPlayground',
          summary: 'Batch evaluate an Unleash context against a set of environments and projects.',
          description:
            'Every matching flag in every environment for every combination of the comma-separated context values, up to the configured number of evaluations.',
          body: AdvancedPlaygroundBody,
          response: { 200: AdvancedPlaygroundResponse, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        const config = await configuration.get({ fresh: true });
        const plan = planAdvancedPlayground(config, request.body, deps.config.PLAYGROUND_EVALUATION_LIMIT);
        // Streamed JSON text (see advancedPlaygroundJson); the response schema documents its shape.
        // Each flag's piece (~75 KB here) leaves as a Buffer: see advancedPlaygroundJson.
        const body = Readable.from(advancedPlaygroundJson(plan, deps.now()));
        return reply.type('application/json; charset=utf-8').send(body as never);
      },
    );
  });
