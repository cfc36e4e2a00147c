import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { FlagEnvironmentParams, PayloadBody, ProjectIdParam, StrategySchema } from '../shapes/index.js';
import { OPERATORS } from './constraints.validate.js';

export { FlagEnvironmentParams, StrategySchema };

const MAX_INT = 2_147_483_647;

export const StrategyParams = Type.Object({
  ...FlagEnvironmentParams.properties,
  strategyId: Type.String({
    maxLength: 100,
    description: 'The strategy id (a UUID).',
    examples: ['6b3a2f0e-3c1d-4d8e-9a51-0c6a3b7e2f10'],
  }),
});

/** A constraint as clients send it: shape here, operator/value rules in constraints.validate.ts. */
export const ConstraintBody = Type.Object(
  {
    contextName: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Context field the constraint applies to.',
      examples: ['userId'],
    }),
    operator: Type.Enum([...OPERATORS], { description: 'Constraint operator.', examples: ['IN'] }),
    caseInsensitive: Type.Optional(
      Type.Boolean({ description: 'Compare case-insensitively (default false).', examples: [false] }),
    ),
    inverted: Type.Optional(
      Type.Boolean({ description: 'Negate the outcome (default false).', examples: [false] }),
    ),
    values: Type.Optional(
      Type.Array(Type.String({ maxLength: 1000, description: 'One value.' }), {
        maxItems: 10_000,
        description: 'Values of the multi-value operators (IN, NOT_IN, STR_*, IN_CIDR).',
        examples: [['u1', 'u2']],
      }),
    ),
    value: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'Value of the single-value operators (NUM_*, DATE_*, SEMVER_*, REGEX).',
        examples: ['1.2.3'],
      }),
    ),
  },
  { description: 'A constraint: all constraints of a strategy must hold.' },
);
export type ConstraintBodyInput = Static<typeof ConstraintBody>;

export const ConstraintsBody = Type.Array(ConstraintBody, {
  maxItems: 1000,
  description: 'Constraints, all of which must hold.',
});

export const StrategyVariantBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: 'Variant name.', examples: ['blue'] }),
    weight: Type.Integer({
      minimum: 0,
      maximum: 1000,
      description: 'Weight 0-1000; variable weights are recomputed.',
      examples: [500],
    }),
    weightType: Type.Enum(['variable', 'fix'], {
      description: '`fix` keeps the weight; `variable` shares what fixed weights leave of 1000.',
      examples: ['variable'],
    }),
    stickiness: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Context field for stable assignment.',
      examples: ['default'],
    }),
    payload: Type.Optional(PayloadBody),
  },
  { description: 'A strategy variant.' },
);
export type StrategyVariantInput = Static<typeof StrategyVariantBody>;

const strategyFields = {
  title: Type.Optional(
    Nullable(Type.String({ maxLength: 255, description: 'Descriptive title.', examples: ['Beta users'] })),
  ),
  disabled: Type.Optional(
    Nullable(Type.Boolean({ description: 'Disabled strategies are not evaluated (null: false).' })),
  ),
  sortOrder: Type.Optional(
    Type.Integer({
      minimum: -MAX_INT,
      maximum: MAX_INT,
      description: 'Position in the list.',
      examples: [0],
    }),
  ),
  constraints: Type.Optional(ConstraintsBody),
  variants: Type.Optional(
    Type.Array(StrategyVariantBody, { maxItems: 100, description: 'Strategy variants.' }),
  ),
  parameters: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: 10_000, description: 'A parameter value.' }), {
      description: 'Strategy parameters: a map of string to string.',
      examples: [{ rollout: '50', stickiness: 'default', groupId: 'new-checkout' }],
    }),
  ),
  segments: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: MAX_INT, description: 'A segment id.' }), {
      maxItems: 1000,
      description: 'Ids of the segments to attach.',
      examples: [[1, 2]],
    }),
  ),
};

export const CreateStrategyBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Strategy type name (a defined strategy).',
      examples: ['flexibleRollout'],
    }),
    ...strategyFields,
  },
  { description: 'A new activation strategy.' },
);
export type CreateStrategyInput = Static<typeof CreateStrategyBody>;

export const UpdateStrategyBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Strategy type name (deprecated: changing the type).',
        examples: ['flexibleRollout'],
        deprecated: true,
      }),
    ),
    ...strategyFields,
  },
  { description: 'Strategy properties to change; those left out keep their values, null clears.' },
);
export type UpdateStrategyInput = Static<typeof UpdateStrategyBody>;

export const PatchBody = Type.Array(
  Type.Object(
    {
      op: Type.Enum(['add', 'remove', 'replace', 'copy', 'move', 'test'], {
        description: 'The operation.',
        examples: ['replace'],
      }),
      path: Type.String({ description: 'JSON pointer to the target.', examples: ['/parameters/rollout'] }),
      from: Type.Optional(Type.String({ description: 'JSON pointer of the source (move, copy).' })),
      value: Type.Optional(Type.Unknown({ description: 'The value (add, replace, test).' })),
    },
    { description: 'One RFC 6902 JSON Patch operation.' },
  ),
  { maxItems: 1000, description: 'A JSON Patch (RFC 6902) applied to the strategy.' },
);
export type PatchInput = Static<typeof PatchBody>;

export const SortOrderBody = Type.Array(
  Type.Object(
    {
      id: Type.String({ maxLength: 100, description: 'The strategy id.' }),
      sortOrder: Type.Integer({
        minimum: -MAX_INT,
        maximum: MAX_INT,
        description: 'Its new position.',
        examples: [1],
      }),
    },
    { description: 'A strategy and its new sort order.' },
  ),
  { maxItems: 1000, description: 'Strategies with their new sort order.' },
);
export type SortOrderInput = Static<typeof SortOrderBody>;

export const StrategyListSchema = Type.Array(StrategySchema, {
  description: 'The strategies of the flag in the environment, in order.',
});
export type Strategy = Static<typeof StrategySchema>;

export const BulkEnvironmentParams = Type.Object({
  projectId: ProjectIdParam,
  environment: Type.String({
    maxLength: 100,
    description: 'The environment name.',
    examples: ['production'],
  }),
});

export const BulkFlagsBody = Type.Object(
  {
    features: Type.Array(
      Type.String({ minLength: 1, maxLength: 100, description: 'A flag of the project.' }),
      {
        minItems: 1,
        maxItems: 1000,
        description: 'The flags to turn on or off.',
        examples: [['feature-a', 'feature-b']],
      },
    ),
  },
  { description: 'Flags to change in one go.' },
);
