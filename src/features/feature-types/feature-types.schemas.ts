import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

export const FeatureTypeSchema = Type.Object(
  {
    id: Type.String({ description: 'The flag type id.', examples: ['kill-switch'] }),
    name: Type.String({ description: 'Display name.', examples: ['Kill switch'] }),
    description: Type.String({ description: 'What flags of this type are for.' }),
    lifetimeDays: Nullable(
      Type.Integer({
        minimum: 0,
        description:
          'Days after which a flag of this type is potentially stale; null: never (docs/api.md §5).',
        examples: [40],
      }),
    ),
  },
  { description: 'A flag type.' },
);
export type FeatureType = Static<typeof FeatureTypeSchema>;

export const FeatureTypesSchema = Type.Object(
  {
    version: Type.Literal(1, { description: 'Schema version.' }),
    types: Type.Array(FeatureTypeSchema, { description: 'Every flag type.' }),
  },
  { description: 'The flag types and their expected lifetimes.' },
);

export const FeatureTypeParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'Flag type id.', examples: ['release'] }),
});

export const LifetimeBody = Type.Object(
  {
    lifetimeDays: Nullable(
      Type.Integer({
        minimum: 0,
        maximum: 2_147_483_647,
        description: 'The new lifetime in days; null or 0: flags of this type are never potentially stale.',
        examples: [7],
      }),
    ),
  },
  { description: 'The expected lifetime of a flag type.' },
);
