import { Type } from 'typebox';

export const ClientFeaturesHeaders = Type.Object({
  'unleash-client-spec': Type.Optional(
    Type.String({
      description: 'Client specification version the SDK implements (4.2.0+ gets segments separately).',
    }),
  ),
  'if-none-match': Type.Optional(Type.String({ description: 'ETag of the payload the SDK already has.' })),
});

export const ClientFeaturesQuery = Type.Object({
  namePrefix: Type.Optional(
    Type.String({ maxLength: 255, description: 'Only the flags whose name starts with this.' }),
  ),
});

export const ClientFeaturesResponse = Type.Unknown({
  description:
    "The flags of the token's projects in its environment, in the Unleash client format: {version, features, segments?, query, meta}.",
});

export const RegisterBody = Type.Object(
  {
    appName: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Application name.',
      examples: ['web'],
    }),
    instanceId: Type.String({ maxLength: 255, description: 'Instance id.', examples: ['web-1'] }),
    sdkVersion: Type.Optional(Type.String({ maxLength: 255, description: 'SDK name and version.' })),
    environment: Type.Optional(Type.String({ description: 'Ignored: the token decides the environment.' })),
    strategies: Type.Optional(
      Type.Array(Type.String({ description: 'A strategy name.' }), {
        maxItems: 1000,
        description: 'Strategies the SDK implements.',
      }),
    ),
    started: Type.Optional(Type.Unknown({ description: 'When the SDK started.' })),
    interval: Type.Optional(Type.Unknown({ description: 'Metrics interval in ms.' })),
  },
  { description: 'An SDK announcing itself.' },
);

const Counts = Type.Object(
  {
    yes: Type.Integer({ minimum: 0, description: 'Evaluations that were true.' }),
    no: Type.Integer({ minimum: 0, description: 'Evaluations that were false.' }),
    variants: Type.Optional(
      Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Count per variant.' }),
    ),
  },
  { description: 'Counts for one flag.' },
);

export const MetricsBody = Type.Object(
  {
    appName: Type.String({ minLength: 1, maxLength: 255, description: 'Application name.' }),
    instanceId: Type.String({ maxLength: 255, description: 'Instance id.' }),
    environment: Type.Optional(Type.String({ description: 'Ignored: the token decides the environment.' })),
    bucket: Type.Object(
      {
        start: Type.String({ format: 'date-time', description: 'Start of the bucket.' }),
        stop: Type.String({ format: 'date-time', description: 'End of the bucket.' }),
        toggles: Type.Record(Type.String(), Counts, { description: 'Counts per flag name.' }),
      },
      { description: 'One metrics bucket.' },
    ),
  },
  { description: 'Usage counts of an SDK instance.' },
);

const BulkRegistration = Type.Object(
  {
    appName: Type.String({ minLength: 1, maxLength: 255, description: 'Application name.' }),
    instanceId: Type.String({ maxLength: 255, description: 'Instance id.' }),
    environment: Type.String({ description: 'The environment the SDK runs in.' }),
    sdkVersion: Type.Optional(Type.String({ maxLength: 255, description: 'SDK name and version.' })),
    strategies: Type.Optional(
      Type.Array(Type.String({ description: 'A strategy name.' }), {
        maxItems: 1000,
        description: 'Strategies the SDK implements.',
      }),
    ),
    connectVia: Type.Optional(Type.Unknown({ description: 'The replicas it connected through.' })),
    started: Type.Optional(Type.Unknown({ description: 'When the SDK started.' })),
    interval: Type.Optional(Type.Unknown({ description: 'Its refresh interval.' })),
  },
  { description: 'An SDK registration relayed by an edge replica.' },
);

const BulkMetric = Type.Object(
  {
    featureName: Type.String({ minLength: 1, maxLength: 255, description: 'The flag name.' }),
    appName: Type.String({ minLength: 1, maxLength: 255, description: 'Application name.' }),
    environment: Type.String({ description: 'The environment the counts were made in.' }),
    timestamp: Type.Optional(Type.String({ format: 'date-time', description: 'Start of the hour.' })),
    yes: Type.Integer({ minimum: 0, description: 'Evaluations that were true.' }),
    no: Type.Integer({ minimum: 0, description: 'Evaluations that were false.' }),
    variants: Type.Optional(
      Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Counts per variant.' }),
    ),
  },
  { description: "One flag's counts of one application." },
);

export const BulkMetricsBody = Type.Object(
  {
    applications: Type.Array(BulkRegistration, { maxItems: 10_000, description: 'Registrations.' }),
    metrics: Type.Array(BulkMetric, { maxItems: 100_000, description: 'Usage counts.' }),
    impactMetrics: Type.Optional(Type.Unknown({ description: 'Not kept by this service.' })),
    seenTokens: Type.Optional(Type.Unknown({ description: 'Not kept by this service.' })),
  },
  { description: 'Registrations and usage counts relayed by an edge replica (Unleash bulkMetricsSchema).' },
);
