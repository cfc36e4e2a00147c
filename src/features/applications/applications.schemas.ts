import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { StrategyDefinitionSchema } from '../strategy-definitions/index.js';

const names = (description: string, example: string[]) =>
  Type.Array(Type.String({ description: 'A name.' }), { description, examples: [example] });

export const AppParams = Type.Object({
  appName: Type.String({ description: 'The application name.', examples: ['accounting'] }),
});

export const FeatureParams = Type.Object({
  name: Type.String({ description: 'The flag name.', examples: ['new-checkout'] }),
});

const EnvironmentIssues = Type.Object(
  {
    missingFeatures: names('Flag names the application reported that do not exist, sorted.', ['typo-flag']),
    outdatedSdks: names('SDKs (`name:version`) below the minimum version Unleash recommends.', [
      'unleash-client-node:5.3.0',
    ]),
  },
  { description: 'What may be wrong with the application in this environment.' },
);

const OverviewEnvironment = Type.Object(
  {
    name: Type.String({ description: 'Environment name.', examples: ['production'] }),
    instanceCount: Type.Number({ description: 'Instances seen in the last 24 hours.', examples: [2] }),
    sdks: names('SDK versions (`name:version`) of those instances, sorted.', ['unleash-client-node:6.1.0']),
    frontendSdks: names('The frontend SDKs among them.', ['unleash-client-js:3.7.5']),
    backendSdks: names('The backend SDKs among them.', ['unleash-client-node:6.1.0']),
    lastSeen: Nullable(
      Type.String({ format: 'date-time', description: 'When an instance was last seen (null: none).' }),
    ),
    issues: EnvironmentIssues,
  },
  { description: 'One environment the application was seen in.' },
);

export const ApplicationOverviewSchema = Type.Object(
  {
    projects: names('Projects of the existing flags the application reported, sorted.', ['default']),
    featureCount: Type.Number({
      description: 'Existing flags the application reported in the last 48 hours.',
      examples: [5],
    }),
    environments: Type.Array(OverviewEnvironment, {
      description: 'Environments the application was seen in, by name.',
    }),
    issues: Type.Object(
      {
        missingStrategies: names('Strategies the application registered that do not exist.', [
          'myCustomStrategy',
        ]),
      },
      { description: 'What may be wrong with the application as a whole.' },
    ),
  },
  { description: 'How an application uses the service (Unleash applicationOverviewSchema).' },
);
export type ApplicationOverview = Static<typeof ApplicationOverviewSchema>;

const Usage = Type.Object(
  {
    project: Type.String({ description: 'Project name.', examples: ['default'] }),
    environments: names('Environments in which the application reported flags of the project.', [
      'development',
    ]),
  },
  { description: 'A project the application has used.' },
);

const ApplicationFields = {
  appName: Type.String({ description: 'Name of the application.', examples: ['accounting'] }),
  description: Nullable(Type.String({ description: 'Description set through the admin API.' })),
  url: Nullable(Type.String({ description: 'A link about the application.' })),
  color: Nullable(Type.String({ description: 'CSS color of the application in lists.' })),
  icon: Nullable(Type.String({ description: 'Icon of the application in lists.' })),
  createdAt: Type.String({ format: 'date-time', description: 'When the application was first seen.' }),
};

export const ApplicationListItemSchema = Type.Object(
  {
    ...ApplicationFields,
    updatedAt: Nullable(
      Type.String({ format: 'date-time', description: 'When it last registered or was edited.' }),
    ),
    createdBy: Nullable(Type.String({ description: 'Who created it through the admin API (null: an SDK).' })),
    strategies: names('Strategies the SDK announced.', ['default', 'flexibleRollout']),
    usage: Type.Array(Usage, { description: 'Projects and environments the application reported flags of.' }),
  },
  { description: 'An application that connected through an SDK (Unleash applicationSchema).' },
);

export const ApplicationListSchema = Type.Object(
  {
    applications: Type.Array(ApplicationListItemSchema, { description: 'One page of applications.' }),
    total: Type.Integer({ description: 'Applications matching the query (all pages).', examples: [50] }),
  },
  { description: 'Applications that connected through an SDK (Unleash applicationsSchema).' },
);

const intText = (description: string, example: string) =>
  Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description, examples: [example] }));

export const ApplicationListQuery = Type.Object({
  query: Type.Optional(
    Type.String({
      maxLength: 255,
      description: 'Only applications whose name contains this (case-insensitive).',
      examples: ['first_app'],
    }),
  ),
  offset: intText('Applications to skip: an integer from 0; default 0.', '50'),
  limit: intText('Page size: an integer from 1 to 1000; default 1000.', '50'),
  sortBy: Type.Optional(
    Type.Enum(['appName', 'createdAt', 'updatedAt'], {
      description: 'appName (default), createdAt or updatedAt; ties broken by name.',
      examples: ['appName'],
    }),
  ),
  sortOrder: Type.Optional(
    Type.Enum(['asc', 'desc'], { description: 'asc (default) or desc.', examples: ['desc'] }),
  ),
});
export type ApplicationListInput = Static<typeof ApplicationListQuery>;

const Instance = Type.Object(
  {
    appName: Type.String({ description: 'Application name.' }),
    instanceId: Type.String({ description: 'Instance id.' }),
    sdkVersion: Nullable(Type.String({ description: 'SDK name and version.' })),
    sdkType: Type.Enum(['backend', 'frontend'], { description: 'Kind of SDK.' }),
    clientIp: Nullable(Type.String({ description: 'Address the instance registered from.' })),
    lastSeen: Type.String({ format: 'date-time', description: 'When the instance last registered.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the instance first registered.' }),
    environment: Type.String({ description: 'Environment of its token.' }),
  },
  { description: 'An SDK instance of the application.' },
);

const SeenToggle = Type.Object(
  {
    name: Type.String({ description: 'Flag name.' }),
    description: Nullable(Type.String({ description: 'Flag description.' })),
    type: Type.String({ description: 'Flag type.' }),
    project: Type.String({ description: 'Project of the flag.' }),
    stale: Type.Boolean({ description: 'Whether the flag is stale.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When the flag was created.' }),
    impressionData: Type.Boolean({ description: 'Whether impression data is on.' }),
    archived: Type.Boolean({ description: 'Whether the flag is archived.' }),
  },
  { description: 'An existing flag the application reported.' },
);

export const ApplicationDetailsSchema = Type.Object(
  {
    ...ApplicationFields,
    strategies: Type.Array(StrategyDefinitionSchema, {
      description: 'Definitions of the strategies the SDK announced that exist.',
    }),
    instances: Type.Array(Instance, { description: 'Its instances, most recently seen first.' }),
    seenToggles: Type.Array(SeenToggle, {
      description: 'Existing flags it reported in the last 48 hours, by name.',
    }),
    links: Type.Object(
      { self: Type.String({ description: 'Where this application is.' }) },
      { description: 'Links.' },
    ),
  },
  { description: 'One application with its instances and the flags it uses.' },
);

const text = (description: string, example: string) =>
  Type.Optional(Type.String({ maxLength: 1000, description, examples: [example] }));

export const EditApplicationBody = Type.Object(
  {
    description: text('Description of the application.', 'Books appointments'),
    url: text(
      'A link about the application: an absolute http or https URL (other schemes are a 400); empty clears it.',
      'https://github.com/acme/booking',
    ),
    color: text('CSS color of the application in lists.', 'red'),
    icon: text('Icon of the application in lists.', 'https://github.com/favicon.ico'),
    strategies: Type.Optional(
      Type.Array(Type.String({ description: 'A strategy name.' }), {
        maxItems: 1000,
        description: 'Ignored: the SDK announces its strategies when it registers.',
      }),
    ),
    appName: Type.Optional(Type.String({ description: 'Ignored: the path names the application.' })),
  },
  { description: 'What to change of an application (Unleash createApplicationSchema); absent keeps.' },
);
export type EditApplicationInput = Static<typeof EditApplicationBody>;

const EnvironmentMetrics = Type.Object(
  {
    featureName: Type.String({ description: 'Flag name.' }),
    appName: Type.String({ description: 'Application that reported.' }),
    environment: Type.String({ description: 'Environment of the SDK token.' }),
    timestamp: Type.String({ format: 'date-time', description: 'Start of the hour the counts cover.' }),
    yes: Type.Integer({ minimum: 0, description: 'Evaluations to true.' }),
    no: Type.Integer({ minimum: 0, description: 'Evaluations to false.' }),
    variants: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'How many times each variant was returned.',
    }),
  },
  { description: 'Counts of one flag for one application, environment and hour.' },
);

export const FeatureUsageSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    maturity: Type.String({ description: 'Maturity of this API.', examples: ['stable'] }),
    featureName: Type.String({ description: 'Flag name.' }),
    lastHourUsage: Type.Array(EnvironmentMetrics, {
      description: 'Hourly counts of the current and the previous hour.',
    }),
    totalUsage: Type.Array(
      Type.Object(
        {
          environment: Type.String({ description: 'Environment name.' }),
          yes: Type.Integer({ minimum: 0, description: 'Evaluations to true.' }),
          no: Type.Integer({ minimum: 0, description: 'Evaluations to false.' }),
          variants: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
            description: 'How many times each variant was returned.',
          }),
        },
        { description: 'Counts of one environment over the last 48 hours.' },
      ),
      { description: 'Counts per environment over the last 48 hours, by environment name.' },
    ),
    seenApplications: names('Applications that reported the flag in the last 48 hours, sorted.', [
      'accounting',
    ]),
  },
  { description: 'How the flag was evaluated (Unleash featureUsageSchema).' },
);

export const FeatureMetricsSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    maturity: Type.String({ description: 'Maturity of this API.', examples: ['stable'] }),
    data: Type.Array(EnvironmentMetrics, {
      description: 'Hourly counts of the last 48 hours, oldest first.',
    }),
  },
  { description: 'Hourly metrics of a flag (Unleash featureMetricsSchema).' },
);

export const UnknownFlagsSchema = Type.Object(
  {
    unknownFlags: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: 'The flag name SDKs asked about.' }),
          lastSeenAt: Type.String({ format: 'date-time', description: 'When it was last reported.' }),
          reports: Type.Array(
            Type.Object(
              {
                appName: Type.String({ description: 'Application that reported it.' }),
                environments: Type.Array(
                  Type.Object(
                    {
                      environment: Type.String({ description: 'Environment of the report.' }),
                      seenAt: Type.String({
                        format: 'date-time',
                        description: 'When it was last reported there.',
                      }),
                    },
                    { description: 'One environment.' },
                  ),
                  { description: 'Environments where the application reported it.' },
                ),
              },
              { description: 'One application.' },
            ),
            { description: 'Who reported it.' },
          ),
        },
        { description: 'A flag name SDKs reported that does not exist.' },
      ),
      { description: 'Unknown flag names reported in the last 48 hours, most recent first.' },
    ),
  },
  { description: 'Flag names SDKs reported that do not exist (Unleash unknownFlagsResponseSchema).' },
);
