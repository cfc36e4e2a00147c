import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { FlagVariantSchema, PlanSchema, StrategySchema, TagSchema } from '../shapes/index.js';
import { FlagLinkSchema } from './links.schemas.js';

/**
 * URL-safe as Unleash defines it (`encodeURIComponent(name) === name`), 1-100 characters, and not
 * the path segments `.` or `..`.
 */
export const FLAG_NAME_PATTERN = "^(?!\\.{1,2}$)[A-Za-z0-9_.!~*'()-]{1,100}$";

export const FLAG_TYPES = ['experiment', 'kill-switch', 'release', 'operational', 'permission'] as const;

const FlagName = Type.String({
  pattern: FLAG_NAME_PATTERN,
  description: "Unique flag name: 1-100 URL-safe characters (letters, digits and - _ . ! ~ * ' ( ) ).",
  examples: ['new-checkout'],
});
const FlagType = Type.Enum([...FLAG_TYPES], {
  description: 'Kind of flag; it sets the expected lifetime.',
  examples: ['release'],
});

export const CreateFlagBody = Type.Object(
  {
    name: FlagName,
    type: Type.Optional(FlagType),
    description: Type.Optional(
      Nullable(
        Type.String({ maxLength: 10_000, description: 'What the flag is for.', examples: ['Checkout v2'] }),
      ),
    ),
    impressionData: Type.Optional(
      Type.Boolean({ description: 'Whether SDKs emit impression events for this flag.', examples: [false] }),
    ),
    tags: Type.Optional(
      Type.Array(
        Type.Object({
          type: Type.String({ description: 'An existing tag type.', examples: ['simple'] }),
          value: Type.String({
            minLength: 2,
            maxLength: 50,
            description: 'The tag value.',
            examples: ['team-a'],
          }),
        }),
        { maxItems: 100, description: 'Tags to put on the new flag.' },
      ),
    ),
  },
  { description: 'A new flag.' },
);
export type CreateFlagInput = Static<typeof CreateFlagBody>;

export const UpdateFlagBody = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'If sent, must equal the flag name in the path.' })),
    description: Type.Optional(
      Nullable(
        Type.String({ maxLength: 10_000, description: 'What the flag is for.', examples: ['Checkout v2'] }),
      ),
    ),
    type: Type.Optional(FlagType),
    stale: Type.Optional(Type.Boolean({ description: 'Marks the flag stale (or not).', examples: [true] })),
    archived: Type.Optional(
      Type.Boolean({
        description: 'true archives the flag (sets archivedAt); false revives an archived flag.',
        examples: [false],
      }),
    ),
    impressionData: Type.Optional(
      Type.Boolean({ description: 'Whether SDKs emit impression events for this flag.', examples: [true] }),
    ),
  },
  { description: 'Flag properties to change; the properties left out keep their values.' },
);
export type UpdateFlagInput = Static<typeof UpdateFlagBody>;

export const FlagEnvironmentSchema = Type.Object({
  name: Type.String({ description: 'Environment name.', examples: ['development'] }),
  featureName: Type.String({ description: 'The flag.' }),
  environment: Type.String({ description: 'Environment name.' }),
  type: Type.String({ description: 'Environment type.', examples: ['development'] }),
  enabled: Type.Boolean({ description: 'Whether the flag is on in this environment.' }),
  sortOrder: Type.Number({ description: 'Environment sort order.' }),
  variantCount: Type.Number({ description: 'Number of variants.' }),
  strategies: Type.Array(StrategySchema, { description: 'Activation strategies in order.' }),
  variants: Type.Array(FlagVariantSchema, { description: 'Variants of the flag in this environment.' }),
  lastSeenAt: Nullable(
    Type.String({ format: 'date-time', description: 'Last metrics for this environment.' }),
  ),
  hasStrategies: Type.Boolean({ description: 'Any strategy defined.' }),
  hasEnabledStrategies: Type.Boolean({ description: 'Any enabled strategy defined.' }),
  releasePlans: Type.Optional(
    Type.Array(PlanSchema, {
      description: 'The release plans of the flag in this environment; absent when it has none.',
    }),
  ),
});

export const FlagSchema = Type.Object(
  {
    name: Type.String({ description: 'Unique flag name.', examples: ['new-checkout'] }),
    type: Type.String({ description: 'Flag type.', examples: ['release'] }),
    description: Nullable(Type.String({ description: 'What the flag is for.' })),
    project: Type.String({ description: 'Project of the flag.', examples: ['default'] }),
    archived: Type.Boolean({ description: 'Whether the flag is archived.' }),
    stale: Type.Boolean({ description: 'Whether the flag is marked stale.' }),
    potentiallyStale: Type.Boolean({
      description:
        "Not stale, but at least its type's expected lifetime old (checked every minute; docs/api.md §5).",
    }),
    favorite: Type.Boolean({ description: 'Whether the caller favorited the flag.' }),
    impressionData: Type.Boolean({ description: 'Impression data on or off.' }),
    createdAt: Nullable(Type.String({ format: 'date-time', description: 'Creation time.' })),
    archivedAt: Nullable(Type.String({ format: 'date-time', description: 'When the flag was archived.' })),
    lastSeenAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'Deprecated: use the environment field.',
        deprecated: true,
      }),
    ),
    createdBy: Type.Object(
      {
        id: Nullable(Type.Number({ description: 'User id; -42 for admin tokens.' })),
        name: Type.String({ description: 'User or token name.' }),
      },
      { description: 'Who created the flag.' },
    ),
    environments: Type.Array(FlagEnvironmentSchema, { description: 'Configuration per environment.' }),
    tags: Type.Array(TagSchema, { description: 'Tags on the flag.' }),
    children: Type.Array(Type.String(), { description: 'Names of child flags (experimental).' }),
    dependencies: Type.Array(
      Type.Object({
        feature: Type.String({ description: 'Parent flag name.' }),
        enabled: Type.Boolean({ description: 'Whether the parent must be enabled.' }),
        variants: Type.Optional(Type.Array(Type.String(), { description: 'Allowed parent variants.' })),
      }),
      { description: 'Parent dependencies (experimental).' },
    ),
    lifecycle: Type.Object(
      {
        stage: Type.String({ description: 'initial, pre-live, live, completed or archived.' }),
        enteredStageAt: Type.String({ format: 'date-time', description: 'When the stage was entered.' }),
      },
      { description: 'Current lifecycle stage.' },
    ),
    links: Type.Array(FlagLinkSchema, { description: 'Links of the flag, oldest first.' }),
    collaborators: Type.Optional(
      Type.Object(
        {
          users: Type.Array(
            Type.Object({
              id: Type.Integer({ description: 'The user id.', examples: [7] }),
              name: Type.String({
                description: "The user's name, else username, else email, else `unknown`.",
              }),
              imageUrl: Type.String({ description: 'Avatar URL.' }),
            }),
            { description: 'Users who changed the flag, the latest first (at most 50).' },
          ),
        },
        { description: 'Who changed the flag (from its events); only in GET of one flag.' },
      ),
    ),
  },
  { description: 'A feature flag with its configuration in every environment.' },
);
export type Flag = Static<typeof FlagSchema>;

/** The path of one flag of a project: the prefix of every per-flag operation. */
export const FLAG_PATH = '/api/admin/projects/:projectId/features/:featureName';
