import { type TSchema, Type } from 'typebox';

/** The error body of every failing request, as the spec's Errors section defines it. */
export const ErrorSchema = Type.Object(
  {
    id: Type.String({ description: 'Identifier of this error instance (a UUID).', format: 'uuid' }),
    name: Type.String({ description: 'Kind of error, e.g. ValidationError.', examples: ['ValidationError'] }),
    message: Type.String({
      description: 'Human-readable explanation.',
      examples: ['The flag name is taken'],
    }),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          message: Type.String({ description: 'What is wrong with one field or condition.' }),
          path: Type.Optional(
            Type.String({ description: 'Where, e.g. /body/name.', examples: ['/body/name'] }),
          ),
          affectedItems: Type.Optional(
            Type.Array(Type.String(), {
              description: 'The items the rule found, e.g. the flags a refused import names.',
            }),
          ),
        }),
        { description: 'Every failing field or condition.' },
      ),
    ),
    // AuthenticationRequired for want of a credential, as Unleash answers it.
    type: Type.Optional(Type.String({ description: '401: how to sign in, e.g. password.' })),
    path: Type.Optional(Type.String({ description: '401: where to sign in, e.g. /auth/simple/login.' })),
    defaultHidden: Type.Optional(Type.Boolean({ description: '401: whether the login form starts hidden.' })),
  },
  { $id: 'Error', description: 'An error response.' },
);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'ValidationError: the request does not conform to the schema.',
  401: 'AuthenticationRequired: missing or invalid credential.',
  403: 'NoAccessError: the credential lacks the needed permission.',
  404: 'NotFoundError: the requested resource does not exist.',
  409: 'NameExistsError: conflicts with an existing resource.',
  412: 'PreconditionFailedError: If-Match does not match the current ETag; nothing changed.',
  413: 'PayloadTooLargeError: the body is larger than allowed.',
  415: 'ContentTypeerror: the body must be application/json.',
  429: 'RateLimitError: too many requests; retry after the Retry-After header.',
  503: 'ServiceUnavailableError: the service cannot take this request now; retry later.',
};

/** Response schemas for the listed error statuses, all referring to the shared Error shape. */
export function errorResponses(...statuses: (keyof typeof ERROR_DESCRIPTIONS)[]): Record<number, TSchema> {
  return Object.fromEntries(
    statuses.map((s) => [s, Type.Ref('Error', { description: ERROR_DESCRIPTIONS[s] })]),
  );
}

/** A nullable value, written as OpenAPI 3.0 understands it. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The response of an operation that answers without a body (documented as JSON null). */
export const NoBody = (description: string) => Type.Null({ description });
