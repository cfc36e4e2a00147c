import { Type } from 'typebox';

/**
 * The OpenFeature Remote Evaluation Protocol (OFREP 0.3.0) wire shapes. Its error bodies are its
 * own (`{key, errorCode, errorDetails}`), not this service's `Error`: the OpenFeature providers
 * read `errorCode` from them, and a body without it becomes a GENERAL error on their side.
 */

export const OfrepContext = Type.Object(
  {
    targetingKey: Type.Optional(
      Type.String({
        description:
          'Who is evaluated: the Unleash `userId` (unless `userId` is given too) and the property `targetingKey`.',
      }),
    ),
  },
  {
    additionalProperties: true,
    description:
      "The OpenFeature evaluation context. `userId`, `sessionId`, `remoteAddress`, `appName` and `currentTime` are Unleash context fields; `properties` (an object) and every other key become properties (numbers and booleans as text; objects, arrays and null are left out). The environment is the token's.",
  },
);

export const OfrepRequest = Type.Object(
  {
    context: Type.Optional(OfrepContext),
  },
  { additionalProperties: true, description: 'An evaluation request.' },
);

const Metadata = Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.String(), Type.Number()]), {
  description:
    'Flag metadata: `enabled` (whether Unleash enables the flag for the context), `project`, `flagType`, `impressionData`, and `payloadType` when a variant payload made the value.',
});

export const OfrepSuccess = Type.Object(
  {
    key: Type.String({ description: 'The flag name.' }),
    value: Type.Optional(
      Type.Union(
        [Type.Boolean(), Type.String(), Type.Number(), Type.Object({}, { additionalProperties: true })],
        {
          description:
            'The value: a boolean for a flag without variants, else from the chosen variant (its payload as string, number or object, or its name). When a non-boolean flag has none (off, not enabled for the context, or a variant without payload): the kind\'s empty value (`""`, `0`, `{}`) in the single answer, absent (the application\'s default) in the bulk answer.',
        },
      ),
    ),
    reason: Type.Union(
      [
        Type.Literal('STATIC'),
        Type.Literal('TARGETING_MATCH'),
        Type.Literal('SPLIT'),
        Type.Literal('DISABLED'),
        Type.Literal('DEFAULT'),
      ],
      { description: 'Why this value: an OpenFeature resolution reason.' },
    ),
    variant: Type.Optional(
      Type.String({
        description: 'The Unleash variant name (`enabled`/`disabled` for a flag without variants).',
      }),
    ),
    metadata: Type.Optional(Metadata),
  },
  { description: 'A successful evaluation.' },
);

export const OfrepFailure = Type.Object(
  {
    key: Type.String({ description: 'The flag name.' }),
    errorCode: Type.Union(
      ['PARSE_ERROR', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT', 'GENERAL', 'FLAG_NOT_FOUND'].map((c) =>
        Type.Literal(c),
      ),
      { description: 'The OpenFeature error code.' },
    ),
    errorDetails: Type.Optional(Type.String({ description: 'What went wrong.' })),
    metadata: Type.Optional(Metadata),
  },
  { description: 'A failed evaluation.' },
);

export const OfrepBulkSuccess = Type.Object(
  {
    flags: Type.Array(Type.Union([OfrepSuccess, OfrepFailure]), {
      description: "Every flag of the token's projects, by name; failed evaluations inline.",
    }),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.String(), Type.Number()]), {
        description: "Flag-set metadata: `environment`, the token's environment.",
      }),
    ),
  },
  { description: "The evaluation of every flag in the token's scope." },
);

export const OfrepBulkFailure = Type.Object(
  {
    errorCode: Type.Union(
      ['INVALID_CONTEXT', 'PARSE_ERROR', 'GENERAL'].map((c) => Type.Literal(c)),
      { description: 'The OpenFeature error code.' },
    ),
    errorDetails: Type.Optional(Type.String({ description: 'What went wrong.' })),
  },
  { description: 'A failed bulk evaluation.' },
);

export const OfrepFlagParams = Type.Object({
  key: Type.String({ description: 'The flag name.' }),
});

export const OfrepBulkHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'The ETag of an earlier answer: 304 when the answer is still the same.' }),
  ),
});

export const OfrepBulkQuery = Type.Object({
  flagConfigEtag: Type.Optional(
    Type.String({ description: 'Sent by providers after a change notification; accepted and not read.' }),
  ),
  flagConfigLastModified: Type.Optional(
    Type.String({ description: 'Sent by providers after a change notification; accepted and not read.' }),
  ),
});
