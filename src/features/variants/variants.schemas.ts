import { type Static, Type } from 'typebox';
import { FlagEnvironmentParams, FlagParams, FlagVariantSchema, PayloadBody } from '../shapes/index.js';

export { FlagEnvironmentParams, FlagParams };

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

export const PatchBody = Type.Array(
  Type.Object({
    op: Type.Enum(['add', 'remove', 'replace', 'copy', 'move', 'test'], {
      description: 'The JSON Patch operation.',
      examples: ['replace'],
    }),
    path: Type.String({ description: 'JSON Pointer to the target, e.g. /0/weight.', examples: ['/0/name'] }),
    from: Type.Optional(Type.String({ description: 'Source pointer for move and copy.', examples: ['/1'] })),
    value: Type.Optional(Type.Unknown({ description: 'The value for add, replace and test.' })),
  }),
  { maxItems: 1000, description: 'An RFC 6902 JSON Patch applied to the variants array.' },
);
export type PatchBodyType = Static<typeof PatchBody>;

export const PushVariantsBody = Type.Object(
  {
    variants: Type.Optional(
      Type.Array(VariantInput, {
        maxItems: 1000,
        description: 'The variants to write to every listed environment.',
      }),
    ),
    environments: Type.Optional(
      Type.Array(Type.String({ maxLength: 100, description: 'An environment name.' }), {
        maxItems: 1000,
        description: 'The environments to write the variants to.',
      }),
    ),
  },
  { description: 'Variants to copy into several environments of the flag.' },
);
export type PushVariantsBodyType = Static<typeof PushVariantsBody>;

export const FeatureVariantsSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    variants: Type.Array(FlagVariantSchema, { description: 'The variants, normalised and sorted by name.' }),
  },
  { description: 'The variants of a flag (environment).' },
);
export type FeatureVariants = Static<typeof FeatureVariantsSchema>;
export type StoredVariant = Static<typeof FlagVariantSchema>;
