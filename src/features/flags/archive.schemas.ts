import { Type } from 'typebox';

export const ArchivedFlagParams = Type.Object({
  featureName: Type.String({ maxLength: 100, description: 'The flag name.', examples: ['new-checkout'] }),
});

export const ArchivedFlagsBody = Type.Object(
  {
    features: Type.Array(
      Type.String({ minLength: 1, maxLength: 100, description: 'An archived flag of the project.' }),
      {
        minItems: 1,
        maxItems: 1000,
        description: 'The archived flags to revive or delete.',
        examples: [['old-checkout']],
      },
    ),
  },
  { description: 'Archived flags to change in one go.' },
);
