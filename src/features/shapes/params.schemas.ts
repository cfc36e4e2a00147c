import { Type } from 'typebox';

/** The path parameters of a project, of a flag in it, and of one flag environment. */
export const ProjectParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] }),
});
export const FlagParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] }),
  featureName: Type.String({ maxLength: 100, description: 'The flag name.', examples: ['new-checkout'] }),
});

/** The path of anything under one flag environment (strategies, variants, on/off). */
export const FlagEnvironmentParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] }),
  featureName: Type.String({ maxLength: 100, description: 'The flag name.', examples: ['new-checkout'] }),
  environment: Type.String({
    maxLength: 100,
    description: 'The environment name.',
    examples: ['development'],
  }),
});
