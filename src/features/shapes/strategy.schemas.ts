import { Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

/** A variant payload as clients send it (strategy and flag variants alike). */
export const PayloadBody = Type.Object(
  {
    type: Type.Enum(['json', 'csv', 'string', 'number'], {
      description: 'Payload type.',
      examples: ['string'],
    }),
    value: Type.String({
      maxLength: 100_000,
      description: 'The payload, stringified; a json payload must parse.',
      examples: ['blue'],
    }),
  },
  { description: 'Data delivered with the variant.' },
);

export const ConstraintSchema = Type.Object({
  contextName: Type.String({ description: 'Context field the constraint applies to.', examples: ['userId'] }),
  operator: Type.String({ description: 'Constraint operator.', examples: ['IN'] }),
  caseInsensitive: Type.Optional(
    Type.Boolean({ description: 'Compare case-insensitively.', default: false }),
  ),
  inverted: Type.Optional(Type.Boolean({ description: 'Negate the outcome.', default: false })),
  values: Type.Optional(Type.Array(Type.String(), { description: 'Values for multi-value operators.' })),
  value: Type.Optional(Type.String({ description: 'Value for single-value operators.' })),
});

const PayloadSchema = Type.Object(
  {
    type: Type.String({ description: 'json, csv, string or number.', examples: ['string'] }),
    value: Type.String({ description: 'The payload, stringified.', examples: ['blue'] }),
  },
  { description: 'Data delivered with the variant.' },
);

export const StrategyVariantSchema = Type.Object({
  name: Type.String({ description: 'Variant name.', examples: ['blue'] }),
  weight: Type.Number({ description: 'Weight 0-1000.', examples: [500] }),
  weightType: Type.String({ description: 'variable or fix.', examples: ['variable'] }),
  stickiness: Type.String({ description: 'Context field for stable assignment.', examples: ['default'] }),
  payload: Type.Optional(PayloadSchema),
});

export const FlagVariantSchema = Type.Object({
  name: Type.String({ description: 'Variant name.', examples: ['blue'] }),
  weight: Type.Number({ description: 'Weight 0-1000.', examples: [500] }),
  weightType: Type.Optional(Type.String({ description: 'variable or fix.', examples: ['variable'] })),
  stickiness: Type.Optional(Type.String({ description: 'Context field for stable assignment.' })),
  payload: Type.Optional(PayloadSchema),
  overrides: Type.Optional(
    Type.Array(
      Type.Object({
        contextName: Type.String({ description: 'Context field to match.', examples: ['userId'] }),
        values: Type.Array(Type.String(), { description: 'Values of that field that get this variant.' }),
      }),
      { description: 'Context values that always get this variant.' },
    ),
  ),
});

export const StrategySchema = Type.Object({
  id: Type.String({ description: 'Strategy id (uuid).' }),
  name: Type.String({ description: 'Strategy type name.', examples: ['flexibleRollout'] }),
  title: Nullable(Type.String({ description: 'Descriptive title.' })),
  disabled: Nullable(Type.Boolean({ description: 'Disabled strategies are not evaluated.' })),
  featureName: Type.String({ description: 'The flag the strategy belongs to.' }),
  sortOrder: Type.Number({ description: 'Position in the list.' }),
  segments: Type.Array(Type.Number(), { description: 'Ids of attached segments.' }),
  constraints: Type.Array(ConstraintSchema, { description: 'Constraints, all of which must hold.' }),
  variants: Type.Array(StrategyVariantSchema, { description: 'Strategy variants.' }),
  parameters: Type.Record(Type.String(), Type.String(), { description: 'Strategy parameters.' }),
});
