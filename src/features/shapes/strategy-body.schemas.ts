import { type Static, Type } from 'typebox';
import { OPERATORS } from '../../evaluation/index.js';
import { Nullable } from '../../platform/http/schemas.js';
import { jsonPatchBody } from './json-patch.schemas.js';
import { PayloadBody } from './strategy.schemas.js';

/**
 * What clients send to create or change a strategy (the strategy routes' bodies and the strategy
 * changes of src/features/changes/): the shape here, the rules in the strategies slice.
 */

const MAX_INT = 2_147_483_647;

/** A constraint as clients send it: shape here, operator/value rules in the strategies slice (constraints.validate.ts). */
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

export const PatchBody = jsonPatchBody('the strategy', '/parameters/rollout');
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
