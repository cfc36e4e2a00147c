import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

const contextFields = {
  appName: Type.Optional(Type.String({ description: 'The application name.', examples: ['web'] })),
  environment: Type.Optional(
    Type.String({ description: "The context's environment field; the token's environment when absent." }),
  ),
  userId: Type.Optional(Type.String({ description: 'User identifier.', examples: ['user-42'] })),
  sessionId: Type.Optional(
    Type.String({ description: 'Session identifier; a random one per request when absent (as Unleash).' }),
  ),
  remoteAddress: Type.Optional(
    Type.String({ description: "Client IP address; the request's address when absent." }),
  ),
  currentTime: Type.Optional(
    Type.String({ description: 'Evaluation time (RFC 3339); the server time when absent.' }),
  ),
};

export const FrontendQuery = Type.Object(contextFields, {
  additionalProperties: Type.String(),
  description:
    'The context as query parameters: the fields above, `properties[name]=value` for properties, and any other name as a property.',
});

export const FrontendContext = Type.Object(
  {
    ...contextFields,
    properties: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Custom context properties (string values).',
        examples: [{ region: 'eu' }],
      }),
    ),
  },
  { additionalProperties: true, description: 'The Unleash context; other top-level names are properties.' },
);
export type FrontendContextInput = Static<typeof FrontendContext>;

export const FrontendPostBody = Type.Object(
  { context: Type.Optional(FrontendContext) },
  { description: 'The context to evaluate, as the SDK sends it with `usePOSTrequests`.' },
);

const Payload = Type.Object(
  {
    type: Type.String({ description: 'The format of the payload: json, csv, string or number.' }),
    value: Type.String({ description: 'The payload, as a string.' }),
  },
  { description: 'Extra data configured for the variant.' },
);

export const FrontendVariant = Type.Object(
  {
    name: Type.String({ description: 'The variant name; `disabled` when no variant applies.' }),
    enabled: Type.Boolean({ description: 'Whether a variant was chosen.' }),
    payload: Type.Optional(Payload),
    feature_enabled: Type.Boolean({ description: 'Whether the flag is enabled (always true here).' }),
    featureEnabled: Type.Boolean({ description: 'Deprecated: use `feature_enabled`.', deprecated: true }),
  },
  { description: 'The variant for this context.' },
);

export const FrontendFeature = Type.Object(
  {
    name: Type.String({ description: 'The flag name.', examples: ['new-checkout'] }),
    enabled: Type.Boolean({ description: 'Always true: only enabled flags are listed.' }),
    variant: FrontendVariant,
    impressionData: Type.Boolean({ description: 'Whether the SDK should emit impression events.' }),
  },
  { description: 'A flag enabled for the context.' },
);

export const FrontendFeatures = Type.Object(
  { toggles: Type.Array(FrontendFeature, { description: 'The flags enabled for the context.' }) },
  { description: "The flags of the token's projects and environment that are enabled for the context." },
);

export const FrontendAllFeatures = Type.Object(
  {
    toggles: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'The flag name.' }),
          enabled: Type.Boolean({ description: 'Whether the flag is enabled for the context.' }),
          variant: FrontendVariant,
          impressionData: Type.Boolean({ description: 'Whether the SDK should emit impression events.' }),
        },
        { description: 'A flag of the scope, evaluated for the context.' },
      ),
      { description: 'Every flag of the scope, enabled or not.' },
    ),
  },
  {
    description:
      "Every flag of the token's projects and environment, evaluated for the context (Unleash Edge's `/all`).",
  },
);

export const FrontendHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'ETag of the answer the SDK already has (GET only).' }),
  ),
});

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

export const FrontendMetricsBody = Type.Object(
  {
    appName: Type.String({ minLength: 1, maxLength: 255, description: 'Application name.' }),
    instanceId: Type.Optional(Type.String({ maxLength: 255, description: 'Instance id.' })),
    environment: Type.Optional(Type.String({ description: 'Ignored: the token decides the environment.' })),
    bucket: Type.Optional(
      Nullable(
        Type.Object(
          {
            start: Type.String({ format: 'date-time', description: 'Start of the bucket.' }),
            stop: Type.String({ format: 'date-time', description: 'End of the bucket.' }),
            toggles: Type.Record(Type.String(), Counts, { description: 'Counts per flag name.' }),
          },
          { description: 'One metrics bucket; may be absent or null (impact metrics only).' },
        ),
      ),
    ),
  },
  { description: 'Usage counts of a frontend SDK.' },
);

export const FrontendRegisterBody = Type.Object(
  {
    appName: Type.String({ minLength: 1, maxLength: 255, description: 'Application name.' }),
    instanceId: Type.Optional(
      Type.String({ maxLength: 255, description: 'Instance id; `default` when absent.' }),
    ),
    sdkVersion: Type.Optional(Type.String({ maxLength: 255, description: 'SDK name and version.' })),
    environment: Type.Optional(Type.String({ description: 'Ignored: the token decides the environment.' })),
    interval: Type.Number({ description: 'Metrics interval in ms.' }),
    started: Type.Union([Type.String({ format: 'date-time' }), Type.Number()], {
      description: 'When the SDK started.',
    }),
    strategies: Type.Array(Type.String({ description: 'A strategy name.' }), {
      maxItems: 1000,
      description: 'Strategies the SDK implements.',
    }),
  },
  { description: 'A frontend SDK announcing itself.' },
);
