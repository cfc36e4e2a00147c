import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { TagSchema } from '../tags/index.js';
import { FLAG_NAME_PATTERN, FlagSchema } from './flags.schemas.js';

export const ArchivedFlagParams = Type.Object({
  featureName: Type.String({ maxLength: 100, description: 'The flag name.', examples: ['new-checkout'] }),
});

export const ArchiveProjectParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] }),
});

const ProjectFlagEnvironmentSchema = Type.Object({
  name: Type.String({ description: 'Environment name.', examples: ['development'] }),
  type: Type.String({ description: 'Environment type.', examples: ['development'] }),
  enabled: Type.Boolean({ description: 'Whether the flag is on in this environment.' }),
  sortOrder: Type.Number({ description: 'Environment sort order.' }),
  variantCount: Type.Number({ description: 'Number of variants in this environment.' }),
  lastSeenAt: Nullable(
    Type.String({ format: 'date-time', description: 'Last metrics for this environment.' }),
  ),
  hasStrategies: Type.Boolean({ description: 'Any strategy defined.' }),
  hasEnabledStrategies: Type.Boolean({ description: 'Any enabled strategy defined.' }),
});

export const ProjectFlagSchema = Type.Object({
  name: Type.String({ description: 'Unique flag name.', examples: ['new-checkout'] }),
  type: Type.String({ description: 'Flag type.', examples: ['release'] }),
  description: Nullable(Type.String({ description: 'What the flag is for.' })),
  stale: Type.Boolean({ description: 'Whether the flag is marked stale.' }),
  favorite: Type.Boolean({ description: 'Whether the caller favorited the flag.' }),
  impressionData: Type.Boolean({ description: 'Impression data on or off.' }),
  createdAt: Nullable(Type.String({ format: 'date-time', description: 'Creation time.' })),
  environments: Type.Array(ProjectFlagEnvironmentSchema, {
    description: 'State of the flag in every environment of the project.',
  }),
  tags: Type.Array(TagSchema, { description: 'Tags on the flag.' }),
});

export const ProjectFlagsSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Version of the response format (1).', examples: [1] }),
    features: Type.Array(ProjectFlagSchema, { description: 'The active flags of the project, by name.' }),
  },
  { description: "A project's active (not archived) flags." },
);
export type ProjectFlags = Static<typeof ProjectFlagsSchema>;

export const ArchivedFlagsSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Version of the response format (1).', examples: [1] }),
    features: Type.Array(FlagSchema, { description: 'Archived flags, by name.' }),
  },
  { description: 'Archived flags.' },
);

export const StaleBody = Type.Object(
  {
    features: Type.Array(Type.String({ maxLength: 100, description: 'A flag name.' }), {
      maxItems: 1000,
      description: 'Flags to mark; names of flags that do not exist in the project are ignored.',
      examples: [['new-checkout']],
    }),
    stale: Type.Boolean({ description: 'true marks the flags stale, false not stale.', examples: [true] }),
  },
  { description: 'Flags to mark stale or not stale.' },
);
export type StaleInput = Static<typeof StaleBody>;

export const CloneBody = Type.Object(
  {
    name: Type.String({
      pattern: FLAG_NAME_PATTERN,
      description: 'Name of the new flag.',
      examples: ['new-checkout-copy'],
    }),
    replaceGroupId: Type.Optional(
      Type.Boolean({
        description:
          'Whether the groupId parameter of copied strategies becomes the new flag name (default true).',
        default: true,
      }),
    ),
  },
  { description: 'The copy to make.' },
);
export type CloneInput = Static<typeof CloneBody>;

const STAGES = ['initial', 'pre-live', 'live', 'completed', 'archived'] as const;

export const LifecycleSchema = Type.Array(
  Type.Object({
    stage: Type.Enum([...STAGES], { description: 'The stage.', examples: ['live'] }),
    status: Type.Optional(
      Type.String({ description: 'For completed: kept or discarded.', examples: ['kept'] }),
    ),
    enteredStageAt: Type.String({ format: 'date-time', description: 'When the flag entered the stage.' }),
  }),
  { description: 'The stages the flag has entered, oldest first; the last one is the current stage.' },
);
export type Lifecycle = Static<typeof LifecycleSchema>;

export const CompleteBody = Type.Object(
  {
    status: Type.Enum(['kept', 'discarded'], {
      description: 'Whether the feature behind the flag was kept or discarded.',
      examples: ['kept'],
    }),
    statusValue: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'With kept: the variant that was kept.',
        examples: ['blue'],
      }),
    ),
  },
  { description: 'How the flag was completed.' },
);
export type CompleteInput = Static<typeof CompleteBody>;
