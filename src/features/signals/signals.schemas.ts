import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

/** Signal endpoints, their tokens and signals, as Unleash's web UI sends and reads them (its `interfaces/signal.ts`). */

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: 2_147_483_647, description });

export const SignalEndpointBody = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z0-9._~-]{1,255}$',
      description: 'The endpoint’s name, part of its URL (`/api/signal-endpoint/<name>`): URL-safe.',
      examples: ['datadog-alerts'],
    }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'What it is for.' }))),
    enabled: Type.Optional(Type.Boolean({ description: 'Accepts signals (default true).' })),
  },
  { description: 'A signal endpoint to create, or its new settings.' },
);
export type SignalEndpointInput = Static<typeof SignalEndpointBody>;

export const SignalEndpointTokenSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The token’s id.' }),
    name: Type.String({ description: 'The token’s name.' }),
    signalEndpointId: Type.Integer({ description: 'The endpoint it belongs to.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
    createdByUserId: Nullable(Type.Integer({ description: 'Who created it.' })),
  },
  { description: 'A token of a signal endpoint (its secret is shown only when created).' },
);
export type SignalEndpointToken = Static<typeof SignalEndpointTokenSchema>;

export const SignalEndpointSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The endpoint’s id.' }),
    name: Type.String({ description: 'The endpoint’s name.' }),
    description: Nullable(Type.String({ description: 'What it is for.' })),
    enabled: Type.Boolean({ description: 'Accepts signals.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was created.' }),
    createdByUserId: Nullable(Type.Integer({ description: 'Who created it.' })),
    tokens: Type.Array(SignalEndpointTokenSchema, { description: 'Its tokens.' }),
    url: Type.Optional(
      Type.String({ description: 'Where to send signals (answered when it is created or changed).' }),
    ),
  },
  { description: 'An endpoint external systems send signals to.' },
);
export type SignalEndpoint = Static<typeof SignalEndpointSchema>;

export const SignalEndpointListSchema = Type.Object(
  { signalEndpoints: Type.Array(SignalEndpointSchema, { description: 'Every endpoint, by id.' }) },
  { description: 'The signal endpoints.' },
);

export const SignalEndpointTokenBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 255, description: 'The token’s name.' }) },
  { description: 'A token to create, or its new name.' },
);

export const CreatedSignalEndpointTokenSchema = Type.Object(
  {
    ...SignalEndpointTokenSchema.properties,
    token: Type.String({ description: 'The secret: shown this once, stored only as its hash.' }),
  },
  { description: 'The new token, with its secret.' },
);

export const SignalEndpointTokenListSchema = Type.Object(
  { signalEndpointTokens: Type.Array(SignalEndpointTokenSchema, { description: 'The tokens, by id.' }) },
  { description: 'The endpoint’s tokens.' },
);

export const SignalSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The signal’s id (increasing).' }),
    source: Type.Literal('signal-endpoint', { description: 'What sent it.' }),
    sourceId: Type.Integer({ description: 'The signal endpoint that received it.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it arrived.' }),
    createdBySourceTokenId: Nullable(Type.Integer({ description: 'The token it was sent with.' })),
    payload: Type.Unknown({ description: 'The JSON it carried.' }),
  },
  { description: 'A signal an external system sent.' },
);
export type Signal = Static<typeof SignalSchema>;

export const EndpointSignalSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The signal’s id (increasing).' }),
    source: Type.Literal('signal-endpoint', { description: 'What sent it.' }),
    sourceId: Type.Integer({ description: 'The signal endpoint that received it.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it arrived.' }),
    tokenName: Nullable(Type.String({ description: 'The name of the token it was sent with.' })),
    payload: Type.Unknown({ description: 'The JSON it carried.' }),
  },
  { description: 'A signal as its endpoint lists it.' },
);

export const EndpointSignalListSchema = Type.Object(
  { signalEndpointSignals: Type.Array(EndpointSignalSchema, { description: 'Newest first.' }) },
  { description: 'Signals an endpoint received.' },
);

export const SignalQueryResponseSchema = Type.Object(
  {
    signals: Type.Array(
      Type.Object({
        ...EndpointSignalSchema.properties,
        sourceName: Nullable(Type.String({ description: 'The endpoint’s name.' })),
        sourceDescription: Nullable(Type.String({ description: 'The endpoint’s description.' })),
      }),
      { description: 'Newest first.' },
    ),
    total: Type.Integer({ description: 'How many signals match, whatever the page.' }),
  },
  { description: 'Signals of every endpoint.' },
);

export const SignalEndpointParams = Type.Object({ id: Id('The signal endpoint’s id.') });
export const SignalEndpointTokenParams = Type.Object({
  id: Id('The signal endpoint’s id.'),
  tokenId: Id('The token’s id.'),
});

export const PageQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'At most this many.' }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: 'Skip this many.' }),
  ),
});

export const SignalQuery = Type.Object({
  ...PageQuery.properties,
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Arrived at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Arrived before.' })),
});

export const IntakeParams = Type.Object({
  name: Type.String({ maxLength: 255, description: 'The signal endpoint’s name.' }),
});
