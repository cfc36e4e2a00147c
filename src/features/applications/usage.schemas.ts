import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

export const EnvironmentInstancesParams = Type.Object({
  appName: Type.String({ description: 'The application name.', examples: ['accounting'] }),
  environment: Type.String({ description: 'The environment of the SDK tokens.', examples: ['production'] }),
});

export const ProjectParams = Type.Object({
  projectId: Type.String({ description: 'The project id.', examples: ['default'] }),
});

export const EnvironmentInstancesSchema = Type.Object(
  {
    instances: Type.Array(
      Type.Object(
        {
          instanceId: Type.String({ description: 'Instance id the SDK reported.', examples: ['pod-1'] }),
          sdkVersion: Nullable(
            Type.String({
              description: 'SDK name and version (`unleash-client-<language>:<version>`).',
              examples: ['unleash-client-node:6.1.0'],
            }),
          ),
          clientIp: Nullable(Type.String({ description: 'Address the instance registered from.' })),
          lastSeen: Type.String({ format: 'date-time', description: 'When the instance was last seen.' }),
        },
        { additionalProperties: false, description: 'An SDK instance.' },
      ),
      { description: 'Instances seen in the last 24 hours, most recent first.' },
    ),
  },
  {
    additionalProperties: false,
    description:
      'Instances of an application in one environment (Unleash applicationEnvironmentInstancesSchema).',
  },
);

export const OutdatedSdksSchema = Type.Object(
  {
    sdks: Type.Array(
      Type.Object(
        {
          sdkVersion: Type.String({
            description: 'An SDK version below the minimum Unleash recommends.',
            examples: ['unleash-client-node:5.0.0'],
          }),
          applications: Type.Array(Type.String({ description: 'An application name.' }), {
            description: 'Applications with an instance reporting that version, sorted.',
          }),
        },
        { additionalProperties: false, description: 'An outdated SDK version.' },
      ),
      { description: 'Outdated SDK versions, sorted.' },
    ),
  },
  { additionalProperties: false, description: 'SDKs that should be upgraded (Unleash outdatedSdksSchema).' },
);

const intText = (description: string, example: string) =>
  Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description, examples: [example] }));

export const ProjectApplicationsQuery = Type.Object({
  query: Type.Optional(
    Type.String({
      maxLength: 255,
      description:
        'Only rows whose application name, environment, instance id or SDK version contains this (case-insensitive).',
      examples: ['first_app'],
    }),
  ),
  offset: intText('Applications to skip: an integer from 0; default 0.', '50'),
  limit: intText('Page size: an integer from 1 to 1000; default 50.', '50'),
  sortBy: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'Accepted for Unleash compatibility: applications are always sorted by name.',
      examples: ['appName'],
    }),
  ),
  sortOrder: Type.Optional(
    Type.Enum(['asc', 'desc'], {
      description: 'asc (default) or desc, by application name.',
      examples: ['desc'],
    }),
  ),
});
export type ProjectApplicationsInput = Static<typeof ProjectApplicationsQuery>;

const names = (description: string) => Type.Array(Type.String({ description: 'A name.' }), { description });

export const ProjectApplicationsSchema = Type.Object(
  {
    total: Type.Integer({ description: 'Applications matching the query (all pages).', examples: [3] }),
    applications: Type.Array(
      Type.Object(
        {
          name: Type.String({
            description: 'Application name (the SDK `appName`).',
            examples: ['accounting'],
          }),
          environments: names('Environments it reported flags of the project in, sorted.'),
          instances: names('Its instance ids in those environments, sorted.'),
          sdks: Type.Array(
            Type.Object(
              {
                name: Type.String({ description: 'SDK package name.', examples: ['unleash-client-node'] }),
                versions: names('Versions of it the instances report, sorted.'),
              },
              { additionalProperties: false, description: 'An SDK the application uses.' },
            ),
            { description: 'SDKs of its instances, by name.' },
          ),
        },
        { additionalProperties: false, description: 'An application using the project.' },
      ),
      { description: 'One page of applications, by name.' },
    ),
  },
  { description: 'Applications that reported flags of the project (Unleash projectApplicationsSchema).' },
);
