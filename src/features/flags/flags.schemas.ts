import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { TagSchema } from '../tags/index.js';
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

export const ProjectParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] }),
});
export const FlagParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] }),
  featureName: Type.String({ maxLength: 100, description: 'The flag name.', examples: ['new-checkout'] }),
});

/** The path of anything under one flag environment (strategies, variants, on/off). */
export const FlagEnvironmentParams = Type.Object({
  projectId: Type.String({ maxLength: 100, description: 'The project id.', examples: ['default'] }),
  featureName: Type.String({ maxLength: 100, description: 'The flag name.', examples: ['new-checkout'] }),
  environment: Type.String({
    maxLength: 100,
    description: 'The environment name.',
    examples: ['development'],
  }),
});

/** A variant payload as clients send it (strategy and flag variants alike). */
export const PayloadBody = Type.Object(
  {
    type: Type.Enum(['json', 'csv', 'string', 'number'], {
      description: 'Payload type.',
      examples: ['string'],
    }),
    value: Type.String({
      maxLength: 100_000,
      description: 'The payload, stringified; a json payload must parse.',
      examples: ['blue'],
    }),
  },
  { description: 'Data delivered with the variant.' },
);

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

export const ConstraintSchema = Type.Object({
  contextName: Type.String({ description: 'Context field the constraint applies to.', examples: ['userId'] }),
  operator: Type.String({ description: 'Constraint operator.', examples: ['IN'] }),
  caseInsensitive: Type.Optional(
    Type.Boolean({ description: 'Compare case-insensitively.', default: false }),
  ),
  inverted: Type.Optional(Type.Boolean({ description: 'Negate the outcome.', default: false })),
  values: Type.Optional(Type.Array(Type.String(), { description: 'Values for multi-value operators.' })),
  value: Type.Optional(Type.String({ description: 'Value for single-value operators.' })),
});

const PayloadSchema = Type.Object(
  {
    type: Type.String({ description: 'json, csv, string or number.', examples: ['string'] }),
    value: Type.String({ description: 'The payload, stringified.', examples: ['blue'] }),
  },
  { description: 'Data delivered with the variant.' },
);

export const StrategyVariantSchema = Type.Object({
  name: Type.String({ description: 'Variant name.', examples: ['blue'] }),
  weight: Type.Number({ description: 'Weight 0-1000.', examples: [500] }),
  weightType: Type.String({ description: 'variable or fix.', examples: ['variable'] }),
  stickiness: Type.String({ description: 'Context field for stable assignment.', examples: ['default'] }),
  payload: Type.Optional(PayloadSchema),
});

export const FlagVariantSchema = Type.Object({
  name: Type.String({ description: 'Variant name.', examples: ['blue'] }),
  weight: Type.Number({ description: 'Weight 0-1000.', examples: [500] }),
  weightType: Type.Optional(Type.String({ description: 'variable or fix.', examples: ['variable'] })),
  stickiness: Type.Optional(Type.String({ description: 'Context field for stable assignment.' })),
  payload: Type.Optional(PayloadSchema),
  overrides: Type.Optional(
    Type.Array(
      Type.Object({
        contextName: Type.String({ description: 'Context field to match.', examples: ['userId'] }),
        values: Type.Array(Type.String(), { description: 'Values of that field that get this variant.' }),
      }),
      { description: 'Context values that always get this variant.' },
    ),
  ),
});

export const StrategySchema = Type.Object({
  id: Type.String({ description: 'Strategy id (uuid).' }),
  name: Type.String({ description: 'Strategy type name.', examples: ['flexibleRollout'] }),
  title: Nullable(Type.String({ description: 'Descriptive title.' })),
  disabled: Nullable(Type.Boolean({ description: 'Disabled strategies are not evaluated.' })),
  featureName: Type.String({ description: 'The flag the strategy belongs to.' }),
  sortOrder: Type.Number({ description: 'Position in the list.' }),
  segments: Type.Array(Type.Number(), { description: 'Ids of attached segments.' }),
  constraints: Type.Array(ConstraintSchema, { description: 'Constraints, all of which must hold.' }),
  variants: Type.Array(StrategyVariantSchema, { description: 'Strategy variants.' }),
  parameters: Type.Record(Type.String(), Type.String(), { description: 'Strategy parameters.' }),
});

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
