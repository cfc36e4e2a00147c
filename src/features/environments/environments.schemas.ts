import { type Static, Type } from 'typebox';
import { ProjectIdParam } from '../shapes/index.js';

/** Environment names as Unleash and the database allow them. */
export const ENVIRONMENT_NAME_PATTERN = '^[a-zA-Z0-9~_.-]{1,100}$';

export const EnvironmentParams = Type.Object({
  name: Type.String({ maxLength: 100, description: 'The environment name.', examples: ['production'] }),
});

const EnvironmentType = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Environment type, e.g. development, test, preproduction or production.',
  examples: ['production'],
});
const SortOrder = Type.Integer({
  minimum: -2_147_483_648,
  maximum: 2_147_483_647,
  description: 'Position in lists: lower comes first.',
  examples: [3],
});

export const CreateEnvironmentBody = Type.Object(
  {
    name: Type.String({
      pattern: ENVIRONMENT_NAME_PATTERN,
      description: 'Unique name: 1-100 letters, digits or ~ _ . -',
      examples: ['staging'],
    }),
    type: EnvironmentType,
    enabled: Type.Optional(
      Type.Boolean({ description: 'Whether the environment is enabled; default true.' }),
    ),
    sortOrder: Type.Optional(SortOrder),
  },
  { description: 'A new environment.' },
);
export type CreateEnvironmentInput = Static<typeof CreateEnvironmentBody>;

export const UpdateEnvironmentBody = Type.Object(
  {
    type: Type.Optional(EnvironmentType),
    sortOrder: Type.Optional(SortOrder),
  },
  { description: 'Environment properties to change; the properties left out keep their values.' },
);
export type UpdateEnvironmentInput = Static<typeof UpdateEnvironmentBody>;

export const EnvironmentSchema = Type.Object(
  {
    name: Type.String({ description: 'The environment name.', examples: ['production'] }),
    type: Type.String({ description: 'Environment type.', examples: ['production'] }),
    enabled: Type.Boolean({ description: 'Whether the environment is enabled.' }),
    protected: Type.Boolean({ description: 'Protected environments cannot be changed or deleted.' }),
    sortOrder: Type.Integer({ description: 'Position in lists: lower comes first.' }),
    projectCount: Type.Integer({ description: 'Number of projects with this environment.' }),
    apiTokenCount: Type.Integer({ description: 'Number of API tokens scoped to this environment.' }),
    enabledToggleCount: Type.Integer({ description: 'Number of flags enabled in this environment.' }),
  },
  { description: 'An environment.' },
);
export type Environment = Static<typeof EnvironmentSchema>;

export const EnvironmentListSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    environments: Type.Array(EnvironmentSchema, {
      description: 'All environments by sort order, then name.',
    }),
  },
  { description: 'All environments.' },
);

export const SortOrderBody = Type.Record(Type.String({ maxLength: 100 }), SortOrder, {
  description: 'Environment names and their new sort orders; environments not named keep theirs.',
  maxProperties: 1000,
  examples: [{ development: 1, production: 2 }],
});
export type SortOrderInput = Static<typeof SortOrderBody>;

export const ProjectIdParams = Type.Object({
  projectId: ProjectIdParam,
});

export const ProjectEnvironmentListSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version.', examples: [1] }),
    environments: Type.Array(
      Type.Object({
        name: Type.String({ description: 'The environment name.' }),
        type: Type.String({ description: 'Environment type.' }),
        enabled: Type.Boolean({ description: 'Whether the project has the environment.' }),
        protected: Type.Boolean({ description: 'Protected environments cannot be changed or deleted.' }),
        sortOrder: Type.Integer({ description: 'Position in lists: lower comes first.' }),
        projectApiTokenCount: Type.Integer({
          description: 'Client and frontend tokens that reach the project there.',
        }),
        projectEnabledToggleCount: Type.Integer({ description: "The project's active flags enabled there." }),
      }),
      { description: 'Every environment, in sort order.' },
    ),
  },
  { description: 'The environments as one project sees them.' },
);
