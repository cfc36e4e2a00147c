import { Type } from 'typebox';

/** The `projectId` of a path, as every route under a project names it. */
export const ProjectIdParam = Type.String({
  maxLength: 100,
  description: 'The project id.',
  examples: ['default'],
});
/** The `featureName` of a path, as every route under a flag names it. */
export const FlagNameParam = Type.String({
  maxLength: 100,
  description: 'The flag name.',
  examples: ['new-checkout'],
});

/** The path parameters of a project, of a flag in it, and of one flag environment. */
export const ProjectParams = Type.Object({
  projectId: ProjectIdParam,
});
export const FlagParams = Type.Object({
  projectId: ProjectIdParam,
  featureName: FlagNameParam,
});

/** The path of anything under one flag environment (strategies, variants, on/off). */
export const FlagEnvironmentParams = Type.Object({
  projectId: ProjectIdParam,
  featureName: FlagNameParam,
  environment: Type.String({
    maxLength: 100,
    description: 'The environment name.',
    examples: ['development'],
  }),
});
