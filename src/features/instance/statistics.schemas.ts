import { Type } from 'typebox';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Windows = (what: string) =>
  Type.Object(
    {
      last7: Count(`${what}, last 7 days.`),
      last30: Count(`${what}, last 30 days.`),
      last90: Count(`${what}, last 90 days.`),
    },
    { description: what },
  );

export const InstanceStatisticsSchema = Type.Object(
  {
    instanceId: Type.String({ description: 'This instance, made once (a UUID).' }),
    timestamp: Type.String({ format: 'date-time', description: 'When the statistics were read.' }),
    versionOSS: Type.String({ description: 'The service version.' }),
    users: Count('People (service accounts aside).'),
    activeUsers: Windows('Users seen'),
    productionChanges: Type.Object(
      {
        last30: Count('Events in production-type environments, last 30 days.'),
        last60: Count('The same, last 60 days.'),
        last90: Count('The same, last 90 days.'),
      },
      { description: 'Changes to production-type environments.' },
    ),
    featureToggles: Count('Active flags.'),
    projects: Count('Active projects.'),
    contextFields: Count('Context fields.'),
    roles: Count('Roles, built-in and custom.'),
    groups: Count('Groups.'),
    environments: Count('Environments.'),
    segments: Count('Segments.'),
    strategies: Count('Strategy types.'),
    SAMLenabled: Type.Boolean({ description: 'Always false: not supported.' }),
    OIDCenabled: Type.Boolean({ description: 'Always false: not supported.' }),
    clientApps: Type.Array(
      Type.Object({
        range: Type.String({ description: '7d, 30d or allTime.' }),
        count: Count('Applications seen in the range.'),
      }),
      { description: 'Applications connected in the last week, month and ever.' },
    ),
    featureExports: Count('Exports made (`features-exported` events).'),
    featureImports: Count('Imports that changed something (`features-imported` events).'),
    apiTokens: Type.Object(
      { admin: Count('Admin tokens.'), client: Count('Client tokens.'), frontend: Count('Frontend tokens.') },
      { description: 'API tokens by type.' },
    ),
    maxEnvironmentStrategies: Count('Most strategies of one flag in one environment.'),
    maxConstraints: Count('Most constraints of one strategy.'),
    maxConstraintValues: Count('Most values of one constraint.'),
    sum: Type.String({
      description: 'SHA-256 of the statistics above (their JSON), to check they were not altered.',
    }),
  },
  { description: 'Counts over the whole instance.' },
);
