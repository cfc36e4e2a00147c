import { type Static, Type } from 'typebox';
import { FlagEnvironmentParams, ProjectIdParam, StrategySchema } from '../shapes/index.js';

export { FlagEnvironmentParams, StrategySchema };

export const StrategyParams = Type.Object({
  ...FlagEnvironmentParams.properties,
  strategyId: Type.String({
    maxLength: 100,
    description: 'The strategy id (a UUID).',
    examples: ['6b3a2f0e-3c1d-4d8e-9a51-0c6a3b7e2f10'],
  }),
});

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
