import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

const Strings = (description: string, examples: string[]) =>
  Type.Array(Type.String({ maxLength: 200, description: 'One entry.' }), {
    maxItems: 1000,
    description,
    examples: [examples],
  });

const Parameters = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(), {
    description,
    examples: [{ url: 'https://hooks.example.com/flagship' }],
  });

export const AddonParameterSchema = Type.Object(
  {
    name: Type.String({ description: 'The parameter name, as used in `parameters`.', examples: ['url'] }),
    displayName: Type.String({ description: 'The name shown in the admin UI.' }),
    type: Type.String({ description: 'Input type: `url`, `text` or `textfield`.', examples: ['url'] }),
    description: Type.Optional(Type.String({ description: 'What the parameter is for.' })),
    placeholder: Type.Optional(Type.String({ description: 'The value used when none is given.' })),
    required: Type.Boolean({ description: 'Whether an addon of this provider must set it.' }),
    sensitive: Type.Boolean({ description: 'Whether its value is masked (`*****`) in answers.' }),
  },
  { additionalProperties: false, description: 'An addon parameter definition.' },
);

export const AddonProviderSchema = Type.Object(
  {
    name: Type.String({ description: 'The provider name, used as `provider`.', examples: ['webhook'] }),
    displayName: Type.String({ description: 'The name shown in the admin UI.' }),
    documentationUrl: Type.String({ description: 'Where the provider is documented.' }),
    description: Type.String({ description: 'What the provider does.' }),
    deprecated: Type.Optional(Type.String({ description: 'Why the provider should not be used any more.' })),
    parameters: Type.Array(AddonParameterSchema, { description: 'What an addon of this provider sets.' }),
    events: Type.Array(Type.String({ description: 'An event type.' }), {
      description: 'The event types an addon of this provider can subscribe to.',
    }),
    tagTypes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ description: 'The tag type name.' }),
            description: Type.String({ description: 'What the tag type is for.' }),
            icon: Type.String({ description: 'The tag type icon.' }),
          },
          { description: 'A tag type.' },
        ),
        { description: 'Tag types the provider reads from flags (Slack: the channels).' },
      ),
    ),
  },
  { additionalProperties: false, description: 'An addon provider and what an addon of it configures.' },
);
export type AddonProvider = Static<typeof AddonProviderSchema>;

export const AddonSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: "The addon's unique identifier.", examples: [27] }),
    provider: Type.String({ description: 'The addon provider.', examples: ['webhook'] }),
    description: Nullable(Type.String({ description: 'A description of the addon; null when none.' })),
    enabled: Type.Boolean({ description: 'Whether the addon is enabled.' }),
    parameters: Parameters('Parameters for the provider; sensitive values are shown as `*****`.'),
    events: Strings('The event types that trigger this addon.', ['feature-created']),
    projects: Strings('Projects it listens to; empty (or `*`) means all.', ['default']),
    environments: Strings('Environments it listens to; empty (or `*`) means all.', ['production']),
  },
  { description: 'An addon (integration) instance.' },
);
export type Addon = Static<typeof AddonSchema>;

export const AddonsSchema = Type.Object(
  {
    addons: Type.Array(AddonSchema, { description: 'All addons, by id.' }),
    providers: Type.Array(AddonProviderSchema, { description: 'The providers this instance offers.' }),
  },
  { description: 'The addons and the addon providers of this instance.' },
);

export const AddonBody = Type.Object(
  {
    provider: Type.String({
      maxLength: 100,
      description: 'One of the providers (`webhook`, `slack`); case sensitive.',
      examples: ['webhook'],
    }),
    description: Type.Optional(
      Nullable(Type.String({ maxLength: 10_000, description: 'A description of the addon.' })),
    ),
    enabled: Type.Boolean({ description: 'Whether the addon delivers events.' }),
    parameters: Parameters(
      "The provider's parameters; a sensitive one sent as `*****` keeps its stored value.",
    ),
    events: Strings('The event types that trigger this addon.', ['feature-created', 'feature-updated']),
    projects: Type.Optional(
      Nullable(Strings('Projects to listen to; empty (the default) means all.', ['default'])),
    ),
    environments: Type.Optional(
      Nullable(Strings('Environments to listen to; empty (the default) means all.', ['production'])),
    ),
  },
  { description: 'An addon to create, or its new settings.' },
);
export type AddonInput = Static<typeof AddonBody>;

export const AddonParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'The addon id.', examples: ['27'] }),
});

export const IntegrationEventsQuery = Type.Object({
  limit: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,9}$', description: 'Page size (default 50).', examples: ['50'] }),
  ),
  offset: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,9}$', description: 'Records to skip (default 0).', examples: ['0'] }),
  ),
});

const DeliveredEvent = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'The event id.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the event was recorded.' }),
    type: Type.String({ description: 'The event type.', examples: ['feature-created'] }),
    createdBy: Type.String({ description: 'Who caused it.' }),
    createdByUserId: Nullable(Type.Number({ description: 'Id of the acting user.' })),
    environment: Nullable(Type.String({ description: 'Environment the event concerns.' })),
    project: Nullable(Type.String({ description: 'Project the event concerns.' })),
    featureName: Nullable(Type.String({ description: 'Flag the event concerns.' })),
    data: Type.Unknown({ description: 'State after the change; null when none.' }),
    preData: Type.Unknown({ description: 'State before the change; null when none.' }),
    tags: Nullable(
      Type.Array(
        Type.Object(
          {
            type: Type.String({ description: 'Tag type.' }),
            value: Type.String({ description: 'Tag value.' }),
          },
          { description: 'A tag.' },
        ),
        { description: 'Tags of the flag when the event happened.' },
      ),
    ),
  },
  { description: 'The event that was delivered.' },
);
export type DeliveredEvent = Static<typeof DeliveredEvent>;

export const IntegrationEventSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9]+$', description: 'Increasing id (a string: it is a bigint).' }),
    integrationId: Type.Integer({ description: 'The addon the delivery belongs to.', examples: [42] }),
    createdAt: Type.String({ format: 'date-time', description: 'When the delivery attempt ended.' }),
    state: Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('successWithErrors')], {
      description: 'How the attempt went.',
    }),
    stateDetails: Type.String({
      description: 'Details of the state, e.g. the status code.',
      examples: ['Webhook request failed with status code: 500.'],
    }),
    event: DeliveredEvent,
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What was sent (body, content type; Slack: the message and channels).',
    }),
  },
  { additionalProperties: false, description: 'The outcome of one delivery attempt.' },
);
export type IntegrationEvent = Static<typeof IntegrationEventSchema>;

export const IntegrationEventsSchema = Type.Object(
  {
    integrationEvents: Type.Array(IntegrationEventSchema, {
      description: 'Delivery attempts, newest first.',
    }),
  },
  { additionalProperties: false, description: 'Delivery attempts of an addon.' },
);
