import { Type } from 'typebox';

const limit = (description: string) => Type.Integer({ minimum: 0, description, examples: [1000] });

/** Unleash's resourceLimitsSchema: every required key; docs/api.md says which are enforced. */
export const ResourceLimitsSchema = Type.Object(
  {
    segmentValues: limit('Constraint values in one segment (the product of the two bounds below).'),
    strategySegments: limit('Segments on one strategy (enforced).'),
    constraintValues: limit('Values of one constraint (enforced).'),
    constraints: limit('Constraints of one strategy or segment (enforced).'),
    featureEnvironmentStrategies: limit('Strategies of a flag in one environment: no limit.'),
    environments: limit('Environments: no limit.'),
    projects: limit('Projects: no limit.'),
    apiTokens: limit('API tokens: no limit.'),
    segments: limit('Segments: no limit.'),
    featureFlags: limit("Active flags in all: no limit (each project's `featureLimit` bounds its own)."),
    releaseTemplates: limit('Release templates (not served): no limit.'),
    actionSetActions: limit('Actions per action set (not served): no limit.'),
    actionSetsPerProject: limit('Action sets per project (not served): no limit.'),
    actionSetFilters: limit('Filters per action set (not served): no limit.'),
    actionSetFilterValues: limit('Values per action set filter (not served): no limit.'),
    signalEndpoints: limit('Signal endpoints (not served): no limit.'),
    signalTokensPerEndpoint: limit('Tokens per signal endpoint (not served): no limit.'),
  },
  {
    description:
      "Bounds for Unleash's web UI: the service's own where it enforces one, else 1,000,000 (none).",
  },
);

export const UiConfigSchema = Type.Object(
  {
    name: Type.String({ description: 'The product name.', examples: ['Flagship'] }),
    version: Type.String({ description: 'The service version.', examples: ['0.1.0'] }),
    unleashUrl: Type.String({ description: 'Where people reach the service (PUBLIC_URL).' }),
    baseUriPath: Type.String({ description: 'The path prefix the service is served under (BASE_URI_PATH).' }),
    versionInfo: Type.Object(
      {
        current: Type.Object(
          { oss: Type.String({ description: 'This version.' }) },
          { description: 'The running version.' },
        ),
        latest: Type.Object({}, { additionalProperties: true, description: 'Not checked: no call home.' }),
        isLatest: Type.Boolean({ description: 'Always true: the service does not look for updates.' }),
      },
      { description: 'Version information.' },
    ),
    authenticationType: Type.String({ description: 'Password login with sessions, and API tokens.' }),
    disablePasswordAuth: Type.Boolean({ description: 'Whether password login is off: never.' }),
    emailEnabled: Type.Boolean({ description: 'Whether the service sends email: never.' }),
    maintenanceMode: Type.Boolean({ description: 'Whether maintenance mode is on.' }),
    frontendApiOrigins: Type.Array(Type.String(), {
      description:
        'Origins browsers may call the frontend API from (set by `POST /api/admin/ui-config/cors`, else FRONTEND_CORS_ORIGINS).',
    }),
    flags: Type.Record(Type.String(), Type.Boolean(), {
      description: 'UI feature switches: none are needed, every feature is on.',
    }),
    links: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'Extra UI links: none.',
    }),
    environment: Type.String({
      description: "The edition, for Unleash's web UI: always `Open source` (no Pro or Enterprise pages).",
      examples: ['Open source'],
    }),
    resourceLimits: ResourceLimitsSchema,
  },
  { description: 'What the admin UI needs to know about this instance.' },
);
