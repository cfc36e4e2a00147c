import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { ConstraintSchema, ProjectIdParam, StrategyVariantSchema } from '../shapes/index.js';
import { CreateStrategyBody } from '../strategies/index.js';

/** Project ids as the database allows them: URL-safe, 1-100 characters, not `.` or `..`. */
export const PROJECT_ID_PATTERN = '^(?!\\.{1,2}$)[a-zA-Z0-9_.~-]{1,100}$';

const ProjectMode = Type.Enum(['open', 'protected', 'private'], {
  description: 'Collaboration mode of the project.',
  examples: ['open'],
});

export const ProjectIdParams = Type.Object({
  projectId: ProjectIdParam,
});
export const ProjectEnvironmentParams = Type.Object({
  projectId: ProjectIdParam,
  environment: Type.String({
    maxLength: 100,
    description: 'The environment name.',
    examples: ['production'],
  }),
});

export const FeatureNamingSchema = Type.Object(
  {
    pattern: Nullable(
      Type.String({
        maxLength: 1000,
        description:
          'Regular expression (RE2 syntax, without delimiters or flags) every new flag name must match in full; no spaces or whitespace escapes.',
        examples: ['^[a-z]+\\.[a-z0-9-]+$'],
      }),
    ),
    example: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 1000,
          description: 'A flag name matching the pattern; requires a pattern.',
          examples: ['dx.new-checkout'],
        }),
      ),
    ),
    description: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 10_000,
          description: 'The pattern explained to people creating flags; requires a pattern.',
          examples: ['<team>.<feature>'],
        }),
      ),
    ),
  },
  { description: 'Naming rule for the flags of the project.' },
);
export type FeatureNamingInput = Static<typeof FeatureNamingSchema>;

const Description = Nullable(
  Type.String({ maxLength: 10_000, description: 'What the project is for.', examples: ['Checkout team'] }),
);
const DefaultStickiness = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Default stickiness for gradual rollouts and variants in this project.',
  examples: ['default'],
});
const FeatureLimit = Nullable(
  Type.Integer({
    minimum: 0,
    maximum: 2_147_483_647,
    description: 'Maximum number of non-archived flags; null for no limit.',
    examples: [100],
  }),
);
const ProjectName = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Display name of the project.',
  examples: ['Checkout'],
});

export const CreateProjectBody = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: PROJECT_ID_PATTERN,
        description:
          'Unique project id: 1-100 URL-safe characters (letters, digits, - _ . ~). Derived from the name when left out.',
        examples: ['checkout'],
      }),
    ),
    name: ProjectName,
    description: Type.Optional(Description),
    mode: Type.Optional(ProjectMode),
    defaultStickiness: Type.Optional(DefaultStickiness),
    featureLimit: Type.Optional(FeatureLimit),
    featureNaming: Type.Optional(FeatureNamingSchema),
    environments: Type.Optional(
      Type.Array(Type.String({ maxLength: 100, description: 'An existing environment name.' }), {
        maxItems: 1000,
        description: 'Environments to enable in the project; by default every enabled environment.',
        examples: [['development', 'production']],
      }),
    ),
  },
  { description: 'A new project.' },
);
export type CreateProjectInput = Static<typeof CreateProjectBody>;

export const ProjectCreatedSchema = Type.Object(
  {
    id: Type.String({ description: 'The project id.', examples: ['checkout'] }),
    name: Type.String({ description: 'Display name.', examples: ['Checkout'] }),
    description: Nullable(Type.String({ description: 'What the project is for.' })),
    mode: Type.String({ description: 'Collaboration mode.', examples: ['open'] }),
    defaultStickiness: Type.String({ description: 'Default stickiness.', examples: ['default'] }),
    featureLimit: Nullable(Type.Number({ description: 'Flag limit; null for none.' })),
    featureNaming: Type.Object(
      {
        pattern: Nullable(Type.String({ description: 'Naming pattern.' })),
        example: Nullable(Type.String({ description: 'Example name.' })),
        description: Nullable(Type.String({ description: 'Pattern explanation.' })),
      },
      { description: 'Naming rule for new flags.' },
    ),
    environments: Type.Array(Type.String({ description: 'Environment name.' }), {
      description: 'Environments enabled in the project.',
    }),
  },
  { description: 'The project as created.' },
);
export type ProjectCreated = Static<typeof ProjectCreatedSchema>;

export const UpdateProjectBody = Type.Object(
  {
    name: Type.Optional(ProjectName),
    description: Type.Optional(Description),
    mode: Type.Optional(ProjectMode),
    defaultStickiness: Type.Optional(DefaultStickiness),
    featureLimit: Type.Optional(FeatureLimit),
    featureNaming: Type.Optional(Nullable(FeatureNamingSchema)),
  },
  { description: 'Project properties to change; the properties left out keep their values, null clears.' },
);
export type UpdateProjectInput = Static<typeof UpdateProjectBody>;

export const ProjectSettingsBody = Type.Object(
  {
    mode: Type.Optional(ProjectMode),
    defaultStickiness: Type.Optional(DefaultStickiness),
    featureLimit: Type.Optional(FeatureLimit),
    featureNaming: Type.Optional(Nullable(FeatureNamingSchema)),
  },
  { description: 'Project settings to change; the settings left out keep their values, null clears.' },
);
export type ProjectSettingsInput = Static<typeof ProjectSettingsBody>;

const Owner = Type.Object(
  {
    ownerType: Type.String({ description: 'user, group or system.', examples: ['system'] }),
    name: Type.Optional(Type.String({ description: 'User or group name.' })),
    email: Type.Optional(Nullable(Type.String({ description: 'User email.' }))),
    imageUrl: Type.Optional(Nullable(Type.String({ description: 'User avatar.' }))),
  },
  { description: 'A holder of the Owner role, or the system when there is none.' },
);

export const OnboardingStatusSchema = Type.Object(
  {
    status: Type.String({
      description: 'onboarding-started, first-flag-created or onboarded.',
      examples: ['onboarded'],
    }),
    feature: Type.Optional(Type.String({ description: 'The first flag (with first-flag-created).' })),
  },
  { description: 'How far the project is in getting started.' },
);

export const ProjectListItemSchema = Type.Object(
  {
    id: Type.String({ description: 'The project id.', examples: ['default'] }),
    name: Type.String({ description: 'Display name.', examples: ['Default'] }),
    description: Nullable(Type.String({ description: 'What the project is for.' })),
    health: Type.Number({ description: 'Deprecated: 100 - technicalDebt.', deprecated: true }),
    technicalDebt: Type.Number({ description: 'Share (0-100) of stale and potentially stale flags.' }),
    featureCount: Type.Number({ description: 'Number of non-archived flags.' }),
    memberCount: Type.Number({ description: 'Number of distinct users with a project role.' }),
    createdAt: Type.String({ format: 'date-time', description: 'Creation time.' }),
    archivedAt: Nullable(Type.String({ format: 'date-time', description: 'When archived.' })),
    mode: Type.String({ description: 'Collaboration mode.', examples: ['open'] }),
    favorite: Type.Boolean({ description: 'Whether the caller favorited the project.' }),
    defaultStickiness: Type.String({ description: 'Default stickiness.', examples: ['default'] }),
    lastUpdatedAt: Nullable(Type.String({ format: 'date-time', description: 'Time of the last event.' })),
    lastReportedFlagUsage: Nullable(
      Type.String({ format: 'date-time', description: 'Last metrics reported for any of its flags.' }),
    ),
    onboardingStatus: OnboardingStatusSchema,
    owners: Type.Array(Owner, { description: 'Project owners; the system when none.' }),
  },
  { description: 'A project in the list.' },
);

export const ProjectListSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    projects: Type.Array(ProjectListItemSchema, { description: 'Non-archived projects, by name.' }),
  },
  { description: 'All projects.' },
);

export const DefaultStrategySchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Strategy type.',
      examples: ['flexibleRollout'],
    }),
    title: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'Descriptive title.' }))),
    disabled: Type.Optional(
      Nullable(Type.Boolean({ description: 'Disabled strategies are not evaluated.' })),
    ),
    sortOrder: Type.Optional(Type.Number({ description: 'Position in the list.' })),
    constraints: Type.Optional(
      Type.Array(ConstraintSchema, { maxItems: 1000, description: 'Constraints, all of which must hold.' }),
    ),
    variants: Type.Optional(
      Type.Array(StrategyVariantSchema, { maxItems: 1000, description: 'Strategy variants.' }),
    ),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.String({ description: 'A parameter value.' }), {
        description: 'Strategy parameters, as strings.',
        examples: [{ rollout: '100', stickiness: 'default', groupId: 'x' }],
      }),
    ),
    segments: Type.Optional(
      Type.Array(Type.Integer({ description: 'Segment id.' }), {
        maxItems: 1000,
        description: 'Ids of existing segments.',
      }),
    ),
  },
  { description: 'A strategy that enabling a flag with no strategy adds in this environment.' },
);
export type DefaultStrategy = Static<typeof DefaultStrategySchema>;

export const ProjectEnvironmentBody = Type.Object(
  {
    environment: Type.String({ maxLength: 100, description: 'Environment to add.', examples: ['staging'] }),
    changeRequestsEnabled: Type.Optional(
      Type.Boolean({ description: 'Accepted for compatibility; change requests are not supported.' }),
    ),
    defaultStrategy: Type.Optional(CreateStrategyBody),
  },
  { description: 'An environment to enable in the project.' },
);
export type ProjectEnvironmentInput = Static<typeof ProjectEnvironmentBody>;

const ProjectEnvironmentItem = Type.Object(
  {
    environment: Type.String({ description: 'Environment name.', examples: ['production'] }),
    changeRequestsEnabled: Type.Optional(Type.Boolean({ description: 'Always false: not supported.' })),
    defaultStrategy: Type.Optional(DefaultStrategySchema),
  },
  { description: 'An environment of the project.' },
);

export const FlagOverviewSchema = Type.Object(
  {
    name: Type.String({ description: 'Flag name.', examples: ['new-checkout'] }),
    description: Nullable(Type.String({ description: 'What the flag is for.' })),
    type: Type.String({ description: 'Flag type.', examples: ['release'] }),
    project: Type.String({ description: 'The project (this one).', examples: ['default'] }),
    archived: Type.Boolean({ description: 'Whether the flag is archived (archived=true lists those).' }),
    createdAt: Type.String({ format: 'date-time', description: 'Creation time.' }),
    stale: Type.Boolean({ description: 'Marked stale.' }),
    potentiallyStale: Type.Boolean({
      description: "Not stale, but at least its type's expected lifetime old (docs/api.md §5).",
    }),
    impressionData: Type.Boolean({ description: 'Impression data on or off.' }),
    favorite: Type.Boolean({ description: 'Whether the caller favorited the flag.' }),
    lastSeenAt: Nullable(
      Type.String({ format: 'date-time', description: 'Last metrics in any environment.' }),
    ),
    archivedAt: Nullable(Type.String({ format: 'date-time', description: 'When archived (archived=true).' })),
    environments: Type.Array(
      Type.Object({
        name: Type.String({ description: 'Environment name.' }),
        enabled: Type.Boolean({ description: 'Whether the flag is on there.' }),
        type: Type.String({ description: 'Environment type.' }),
        sortOrder: Type.Number({ description: 'Environment sort order.' }),
        variantCount: Type.Number({ description: 'Number of variants there.' }),
        lastSeenAt: Nullable(Type.String({ format: 'date-time', description: 'Last metrics there.' })),
        hasStrategies: Type.Boolean({ description: 'Any strategy defined.' }),
        hasEnabledStrategies: Type.Boolean({ description: 'Any enabled strategy defined.' }),
      }),
      { description: 'The flag in each project environment.' },
    ),
    segments: Type.Array(Type.String({ description: 'Segment name.' }), {
      description: 'Names of the segments its strategies use.',
    }),
    tags: Type.Array(
      Type.Object({
        type: Type.String({ description: 'Tag type.' }),
        value: Type.String({ description: 'Tag value.' }),
      }),
      { description: 'Tags on the flag.' },
    ),
  },
  { description: 'A flag as the project overview lists it.' },
);

const Count = (description: string) => Type.Number({ description });
export const ProjectStatsSchema = Type.Object(
  {
    avgTimeToProdCurrentWindow: Count(
      'Mean days from creation to first enabling in a production environment (release flags, last 30 days).',
    ),
    createdCurrentWindow: Count('Flags created in the last 30 days.'),
    createdPastWindow: Count('Flags created 30-60 days ago.'),
    archivedCurrentWindow: Count('Flags archived in the last 30 days.'),
    archivedPastWindow: Count('Flags archived 30-60 days ago.'),
    projectActivityCurrentWindow: Count('Events of the project in the last 30 days.'),
    projectActivityPastWindow: Count('Events of the project 30-60 days ago.'),
    projectMembersAddedCurrentWindow: Count('Project roles granted in the last 30 days.'),
  },
  { description: 'Project statistics over 30-day windows, computed when asked.' },
);

export const ProjectOverviewSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Schema version, always 1.', examples: [1] }),
    id: Type.String({ description: 'The project id.', examples: ['default'] }),
    name: Type.String({ description: 'Display name.', examples: ['Default'] }),
    description: Nullable(Type.String({ description: 'What the project is for.' })),
    defaultStickiness: Type.String({ description: 'Default stickiness.', examples: ['default'] }),
    mode: Type.String({ description: 'Collaboration mode.', examples: ['open'] }),
    featureLimit: Nullable(Type.Number({ description: 'Flag limit; null for none.' })),
    featureNaming: ProjectCreatedSchema.properties.featureNaming,
    members: Type.Number({ description: 'Number of distinct users with a project role.' }),
    health: Type.Number({ description: 'Share (0-100) of flags neither stale nor potentially stale.' }),
    environments: Type.Array(ProjectEnvironmentItem, { description: 'Environments of the project.' }),
    features: Type.Array(FlagOverviewSchema, {
      description: 'Non-archived flags (archived ones with archived=true).',
    }),
    updatedAt: Nullable(Type.String({ format: 'date-time', description: 'Last change of the project.' })),
    createdAt: Nullable(Type.String({ format: 'date-time', description: 'Creation time.' })),
    favorite: Type.Boolean({ description: 'Whether the caller favorited the project.' }),
    stats: ProjectStatsSchema,
  },
  { description: 'A project with its environments and flags (deprecated overview).' },
);
export type ProjectOverview = Static<typeof ProjectOverviewSchema>;

const HealthCount = (description: string) => Type.Integer({ description, minimum: 0 });
export const HealthReportSchema = Type.Object(
  {
    ...ProjectOverviewSchema.properties,
    technicalDebt: Type.Number({
      description: 'Share (0-100) of stale and potentially stale flags: 100 - health.',
    }),
    potentiallyStaleCount: HealthCount(
      "Non-archived flags not marked stale but past their type's expected lifetime.",
    ),
    activeCount: HealthCount('Non-archived flags not marked stale.'),
    staleCount: HealthCount('Non-archived flags marked stale.'),
  },
  { description: 'The project overview with the counts behind its health, computed when asked.' },
);
export type HealthReport = Static<typeof HealthReportSchema>;

export const OverviewQuery = Type.Object({
  archived: Type.Optional(
    Type.Boolean({
      description: 'true lists the archived flags instead of the active ones.',
      default: false,
    }),
  ),
});

const { features: _flags, ...overviewWithoutFlags } = ProjectOverviewSchema.properties;

export const ProjectOverviewV8Schema = Type.Object(
  {
    ...overviewWithoutFlags,
    health: Type.Number({ description: 'Deprecated: use technicalDebt (health = 100 - technicalDebt).' }),
    technicalDebt: Type.Number({ description: 'Share (0-100) of stale and potentially stale flags.' }),
    linkTemplates: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'Link templates for new flags: none (not supported).',
    }),
    archivedAt: Nullable(Type.String({ format: 'date-time', description: 'When the project was archived.' })),
    onboardingStatus: OnboardingStatusSchema,
    featureTypeCounts: Type.Array(
      Type.Object({
        type: Type.String({ description: 'Flag type.' }),
        count: Type.Integer({ description: 'Active flags of that type.' }),
      }),
      { description: 'Active flags per type.' },
    ),
  },
  { description: 'A project without its flags (the current overview).' },
);

export const FlagCreatorsSchema = Type.Array(
  Type.Object({
    id: Type.Integer({ description: 'The user id.', examples: [50] }),
    name: Type.String({ description: "The user's name, else username, else email." }),
  }),
  { description: "The users who created the project's flags." },
);

export const AllFlagCreatorsSchema = Type.Object(
  {
    flagCreators: FlagCreatorsSchema,
    total: Type.Integer({ description: 'How many creators matched.', examples: [2] }),
  },
  { description: 'The users who created active flags, in every project.' },
);

export const FlagCreatorsQuery = Type.Object({
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Keeps the creators whose name contains this text.' }),
  ),
});

const StageSummary = (stage: string) =>
  Type.Object(
    {
      averageDays: Nullable(
        Type.Number({
          description: 'Mean whole days flags stayed in the stage before moving on; null: none has.',
        }),
      ),
      currentFlags: Type.Integer({ description: 'Flags in the stage now.' }),
    },
    { description: `The ${stage} stage.` },
  );

export const ProjectStatusSchema = Type.Object(
  {
    activityCountByDate: Type.Array(
      Type.Object({
        date: Type.String({ description: 'A UTC date.', examples: ['2026-11-23'] }),
        count: Type.Integer({ minimum: 0, description: 'Events of the project that day.' }),
      }),
      { description: 'Events per day over the last 365 days, days without any left out.' },
    ),
    resources: Type.Object(
      {
        apiTokens: Type.Integer({
          minimum: 0,
          description: 'API tokens scoped to this project (not to all).',
        }),
        members: Type.Integer({
          minimum: 0,
          description: 'Users granted a role here directly (not via groups).',
        }),
        segments: Type.Integer({ minimum: 0, description: 'Segments of this project.' }),
      },
      { description: 'What the project has of its own.' },
    ),
    health: Type.Object(
      { current: Type.Integer({ minimum: 0, description: 'Current health (0-100).' }) },
      { description: 'Health: the share of flags neither stale nor potentially stale.' },
    ),
    technicalDebt: Type.Object(
      {
        current: Type.Integer({
          minimum: 0,
          maximum: 100,
          description: 'Current technical debt: 100 - health.',
        }),
      },
      { description: 'Technical debt.' },
    ),
    lifecycleSummary: Type.Object(
      {
        initial: StageSummary('initial'),
        preLive: StageSummary('pre-live'),
        live: StageSummary('live'),
        completed: StageSummary('completed'),
        archived: StageSummary('archived'),
      },
      { description: 'Flags per lifecycle stage.' },
    ),
    staleFlags: Type.Object(
      {
        total: Type.Integer({ minimum: 0, description: 'Active flags that are stale or potentially stale.' }),
      },
      { description: 'Stale and potentially stale flags.' },
    ),
  },
  { description: 'The status of a project: activity, resources, health and lifecycle.' },
);
