import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { TagSchema } from '../shapes/index.js';

export const EventSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Increasing natural number.', examples: [42] }),
    createdAt: Type.String({ format: 'date-time', description: 'When the event was recorded.' }),
    type: Type.String({ description: 'One of the event types.', examples: ['feature-created'] }),
    createdBy: Type.String({ description: 'The acting user or API token.', examples: ['admin'] }),
    createdByUserId: Nullable(Type.Number({ description: 'Id of the acting user; -42 for admin tokens.' })),
    environment: Nullable(Type.String({ description: 'Environment the event concerns.' })),
    project: Nullable(Type.String({ description: 'Project the event concerns.', examples: ['default'] })),
    featureName: Nullable(
      Type.String({ description: 'Flag the event concerns.', examples: ['new-checkout'] }),
    ),
    data: Type.Unknown({ description: 'State of the subject after the change; null when none.' }),
    preData: Type.Unknown({ description: 'State of the subject before the change; null when none.' }),
    tags: Nullable(Type.Array(TagSchema, { description: 'Tags of the flag when the event happened.' })),
    label: Nullable(
      Type.String({ description: 'A short name of the event for people: not written, always null.' }),
    ),
    summary: Nullable(
      Type.String({ description: 'A Markdown summary of the event: not written, always null.' }),
    ),
  },
  { description: 'An event-log record.' },
);

export const EventListSchema = Type.Object({
  version: Type.Integer({ minimum: 1, maximum: 1, description: 'Schema version, always 1.', examples: [1] }),
  events: Type.Array(EventSchema, { description: 'Events, newest first.' }),
  totalEvents: Type.Integer({ description: 'Number of matching events.', examples: [1] }),
});

export const FlagEventListSchema = Type.Object({
  version: Type.Integer({ minimum: 1, maximum: 1, description: 'Schema version, always 1.', examples: [1] }),
  toggleName: Type.String({ description: 'The flag the events belong to.', examples: ['new-checkout'] }),
  events: Type.Array(EventSchema, { description: 'Events of the flag, newest first.' }),
  totalEvents: Type.Integer({ description: 'Number of events of the flag.', examples: [3] }),
});

export const EventsQuerySchema = Type.Object({
  project: Type.Optional(
    Type.String({ description: 'Only events of this project (all of them).', examples: ['default'] }),
  ),
});

export const FlagEventsParamsSchema = Type.Object({
  featureName: Type.String({ description: 'The flag name.', examples: ['new-checkout'] }),
});

export type EventResponse = Static<typeof EventSchema>;

export const EventCreatorsSchema = Type.Array(
  Type.Object({
    id: Type.Integer({ description: 'The user id.', examples: [50] }),
    name: Type.String({ description: "The user's name, else username, else email." }),
  }),
  { description: 'The users who have recorded events.' },
);

const isFilter = (what: string, example: string) =>
  Type.Optional(
    Type.String({
      maxLength: 10_000,
      pattern: '^(IS|IS_ANY_OF):.+$',
      description: `${what}: \`IS:<value>\` or \`IS_ANY_OF:<v1>,<v2>,…\`.`,
      examples: [example],
    }),
  );
const day = (what: string, example: string) =>
  Type.Optional(
    Type.String({
      pattern: '^IS:\\d{4}-\\d{2}-\\d{2}$',
      description: `${what} (UTC), \`IS:yyyy-MM-dd\`.`,
      examples: [example],
    }),
  );

export const EventSearchQuery = Type.Object({
  query: Type.Optional(
    Type.String({ maxLength: 200, description: 'Text to find in the event data, creator or flag name.' }),
  ),
  id: isFilter('Event ids', 'IS:123'),
  feature: isFilter('Flag names', 'IS:new-checkout'),
  project: isFilter('Projects', 'IS:default'),
  type: isFilter('Event types', 'IS_ANY_OF:feature-created,feature-archived'),
  createdBy: isFilter('Ids of the users who recorded the events', 'IS:2'),
  environment: isFilter('Environments', 'IS:production'),
  groupId: isFilter('Event groups (not recorded by this service: matches nothing)', 'IS:1'),
  from: day('First day', 'IS:2026-01-01'),
  to: day('Last day, included', 'IS:2026-01-31'),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'Events to skip.' }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Events per page.' }),
  ),
});

export const EventSearchSchema = Type.Object(
  {
    events: Type.Array(EventSchema, { description: 'One page of matching events, newest first.' }),
    total: Type.Integer({ minimum: 0, description: 'How many events match in all.' }),
  },
  { description: 'Matching events.' },
);
