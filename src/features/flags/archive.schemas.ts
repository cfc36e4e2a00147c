import { Type } from 'typebox';
import { FlagNameParam } from '../shapes/index.js';

export const ArchivedFlagParams = Type.Object({
  featureName: FlagNameParam,
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
