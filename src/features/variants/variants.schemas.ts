import { type Static, Type } from 'typebox';
import {
  FlagEnvironmentParams,
  FlagParams,
  FlagVariantSchema,
  VariantInput,
  type VariantInputType,
  VariantsBody,
} from '../shapes/index.js';

export { FlagEnvironmentParams, FlagParams, VariantInput, type VariantInputType, VariantsBody };

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
