import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { TagSchema } from '../tags/index.js';

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
