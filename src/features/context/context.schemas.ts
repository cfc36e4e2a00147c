import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { FLAG_NAME_PATTERN } from '../flags/index.js';

export const LegalValue = Type.Object(
  {
    value: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'An allowed value.',
      examples: ['gold'],
    }),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the value means.' })),
  },
  { description: 'A legal value of the field.' },
);

export const ContextFieldSchema = Type.Object(
  {
    name: Type.String({ description: 'The context field name.', examples: ['tier'] }),
    description: Nullable(Type.String({ description: 'What the field holds.' })),
    stickiness: Type.Boolean({ description: 'Usable for custom stickiness.' }),
    sortOrder: Type.Integer({ description: 'Position in lists.', examples: [10] }),
    createdAt: Nullable(Type.String({ format: 'date-time', description: 'When the field was created.' })),
    usedInFeatures: Type.Integer({ description: 'Number of flags with a constraint on this field.' }),
    usedInProjects: Type.Integer({ description: 'Number of projects with such flags.' }),
    legalValues: Type.Array(LegalValue, { description: 'Allowed values (empty: any value).' }),
    project: Type.Optional(
      Type.String({ description: 'The project the field belongs to, if project-specific.' }),
    ),
  },
  { description: 'A context field.' },
);
export type ContextField = Static<typeof ContextFieldSchema>;
export const ContextFieldListSchema = Type.Array(ContextFieldSchema, { description: 'All context fields.' });

const fields = {
  description: Type.Optional(
    Nullable(Type.String({ maxLength: 10_000, description: 'What the field holds.' })),
  ),
  stickiness: Type.Optional(Type.Boolean({ description: 'Usable for custom stickiness (default false).' })),
  sortOrder: Type.Optional(
    Type.Integer({
      minimum: -2147483648,
      maximum: 2147483647,
      description: 'Position in lists (default 10).',
    }),
  ),
  legalValues: Type.Optional(
    Type.Array(LegalValue, { maxItems: 10_000, description: 'Allowed values; each value once.' }),
  ),
  project: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 100,
        description: 'An existing project, to make the field project-specific.',
      }),
    ),
  ),
};

const ContextName = Type.String({
  pattern: FLAG_NAME_PATTERN,
  description: 'Unique name: 1-100 URL-safe characters.',
  examples: ['tier'],
});
export const CreateContextFieldBody = Type.Object(
  { name: ContextName, ...fields },
  { description: 'A new context field.' },
);
export type CreateContextFieldInput = Static<typeof CreateContextFieldBody>;
export const UpdateContextFieldBody = Type.Object(fields, {
  description: 'Properties to change; those left out keep their values, null clears.',
});
export type UpdateContextFieldInput = Static<typeof UpdateContextFieldBody>;
export const ValidateNameBody = Type.Object({ name: ContextName }, { description: 'A name to check.' });
export const ContextParams = Type.Object({
  contextField: Type.String({ maxLength: 100, description: 'The context field name.', examples: ['tier'] }),
});

export const LegalValueParams = Type.Object({
  contextField: Type.String({ maxLength: 100, description: 'The context field name.', examples: ['tier'] }),
  legalValue: Type.String({ maxLength: 100, description: 'The legal value.', examples: ['gold'] }),
});

export const ContextStrategiesSchema = Type.Object(
  {
    strategies: Type.Array(
      Type.Object({
        id: Type.String({ description: 'The strategy id.' }),
        featureName: Type.String({ description: 'The flag of the strategy.' }),
        projectId: Type.String({ description: 'The project of the flag.' }),
        environment: Type.String({ description: 'The environment of the strategy.' }),
        strategyName: Type.String({ description: 'The strategy type.' }),
      }),
      {
        description:
          'Strategies with a constraint on the field, archived flags included, as Unleash lists them.',
      },
    ),
  },
  { description: 'The strategies that use a context field.' },
);

const ProjectId = Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] });
export const ProjectScopeParams = Type.Object({ projectId: ProjectId });
export const ProjectContextParams = Type.Object({ projectId: ProjectId, ...ContextParams.properties });
export const ProjectLegalValueParams = Type.Object({ projectId: ProjectId, ...LegalValueParams.properties });
