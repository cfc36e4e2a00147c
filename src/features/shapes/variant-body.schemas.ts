import { type Static, Type } from 'typebox';
import { PayloadBody } from './strategy.schemas.js';

/** One variant as a client sends it; unknown keys are ignored (and not stored). */
export const VariantInput = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Variant name, unique in the list.',
      examples: ['blue'],
    }),
    weight: Type.Number({
      minimum: 0,
      maximum: 1000,
      description: 'Weight 0-1000; a variable weight is recomputed, a fixed one kept.',
      examples: [500],
    }),
    weightType: Type.Optional(
      Type.Enum(['variable', 'fix'], {
        description:
          '`fix` keeps the weight; `variable` (default) shares what the fixed weights leave of 1000.',
        examples: ['variable'],
      }),
    ),
    stickiness: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'Context field for stable assignment (default `default`).',
        examples: ['default'],
      }),
    ),
    payload: Type.Optional(PayloadBody),
    overrides: Type.Optional(
      Type.Array(
        Type.Object({
          contextName: Type.String({
            minLength: 1,
            description: 'Context field to match.',
            examples: ['userId'],
          }),
          values: Type.Array(Type.String({ description: 'A context value.' }), {
            description: 'Values of that field that get this variant.',
          }),
        }),
        { description: 'Context values that always get this variant.' },
      ),
    ),
  },
  { description: 'A flag variant.' },
);
export type VariantInputType = Static<typeof VariantInput>;

export const VariantsBody = Type.Array(VariantInput, {
  maxItems: 1000,
  description: 'The complete new list of variants (replaces the current one).',
});
