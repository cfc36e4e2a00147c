import { Type } from 'typebox';

export const ArchivedFlagParams = Type.Object({
  featureName: Type.String({ maxLength: 100, description: 'The flag name.', examples: ['new-checkout'] }),
});
