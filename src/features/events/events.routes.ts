import type { Deps } from '../../deps.js';
import { routes, sendSerialized } from '../../platform/http/routes.js';
import { errorResponses } from '../../platform/http/schemas.js';
import type { ReadCache } from '../../platform/read-cache.js';
import {
  EventCreatorsSchema,
  EventListSchema,
  EventSearchQuery,
  EventSearchSchema,
  EventsQuerySchema,
  FlagEventListSchema,
  FlagEventsParamsSchema,
} from './events.schemas.js';
import { findEvents, readEventCreators, readEvents, readFlagEvents } from './events.service.js';

export const eventRoutes = (deps: Deps, reads: ReadCache) =>
  routes(async (app) => {
    app.get(
      '/api/admin/search/events',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['Events'],
          operationId: 'searchEvents',
          summary: 'Search events',
          description:
            'Events matching every filter given (ids, flags, projects, types, creators, environments, a UTC day range, text in the data, creator or flag name), newest first, one page, with the total.',
          querystring: EventSearchQuery,
          response: { 200: EventSearchSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request) => findEvents(deps.database.db, request.query),
    );

    app.get(
      '/api/admin/event-creators',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Events'],
          operationId: 'getEventCreators',
          summary: 'Get the users who created events',
          description:
            'Each user who has recorded an event, for event-log filters; tokens and the system are not listed.',
          response: { 200: EventCreatorsSchema, ...errorResponses(401, 403) },
        },
      },
      async () => readEventCreators(deps.database.db),
    );

    app.get(
      '/api/admin/events',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['Events'],
          operationId: 'getEvents',
          summary: 'Get the most recent events',
          description:
            'Without `project`: the last 100 events of the instance. With `project`: all events of that project, newest first; an unknown project gives an empty list.',
          deprecated: true,
          querystring: EventsQuerySchema,
          response: { 200: EventListSchema, ...errorResponses(400, 401, 403) },
        },
      },
      async (request, reply) => {
        reply.header('Deprecation', 'true');
        // Kept serialised, as bytes: the list is large (100 events) and the same for every caller.
        const text = await reads
          .of(request)
          .read(
            `events\u0000${request.query.project ?? '\u0000'}`,
            async () =>
              Buffer.from(String(reply.serialize(await readEvents(deps.database.db, request.query.project)))),
            { bytes: (body) => body.length },
          );
        return sendSerialized(reply, text);
      },
    );

    app.get(
      '/api/admin/events/:featureName',
      {
        config: { permission: 'NONE' },
        schema: {
          tags: ['Events'],
          operationId: 'getEventsForToggle',
          summary: 'Get all events related to a specific feature flag',
          description: 'All events of the flag, newest first. An unknown flag gives an empty list.',
          deprecated: true,
          params: FlagEventsParamsSchema,
          response: { 200: FlagEventListSchema, ...errorResponses(401) },
        },
      },
      async (request, reply) => {
        reply.header('Deprecation', 'true');
        const text = await reads
          .of(request)
          .read(
            `flag-events\u0000${request.params.featureName}`,
            async () =>
              Buffer.from(
                String(reply.serialize(await readFlagEvents(deps.database.db, request.params.featureName))),
              ),
            { bytes: (body) => body.length },
          );
        return sendSerialized(reply, text);
      },
    );
  });
