import { type Static, Type } from 'typebox';
import { ENVIRONMENT_NAME_PATTERN } from '../environments/index.js';
import { FLAG_NAME_PATTERN } from '../flags/index.js';
import { PROJECT_ID_PATTERN } from '../projects/index.js';
import { ConstraintSchema, FlagVariantSchema, StrategyVariantSchema } from '../shapes/index.js';

/** The largest id or sort order a column holds (PostgreSQL `integer`). */
const MAX_ID = 2_147_483_647;
const Name = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const Text = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()], { description }));

export const StateProject = Type.Object(
  {
    id: Type.String({ pattern: PROJECT_ID_PATTERN, description: 'Project id (1-100 URL-safe characters).' }),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Project name.' }),
    description: Text('Project description.'),
  },
  { description: 'A project (Unleash "Project (state import)"; further fields are ignored).' },
);

export const StateEnvironment = Type.Object(
  {
    name: Type.String({
      pattern: ENVIRONMENT_NAME_PATTERN,
      description: 'Environment name (1-100 URL-safe characters).',
    }),
    type: Type.String({ minLength: 1, maxLength: 100, description: 'Environment type.' }),
    sortOrder: Type.Optional(
      Type.Integer({ minimum: -MAX_ID - 1, maximum: MAX_ID, description: 'Position in lists.' }),
    ),
    enabled: Type.Optional(Type.Boolean({ description: 'Whether the environment is enabled.' })),
  },
  { description: 'An environment.' },
);

export const StateStrategyParameter = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Parameter name.' }),
    type: Type.String({ minLength: 1, maxLength: 100, description: 'Parameter type.' }),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the parameter does.' })),
    required: Type.Optional(Type.Boolean({ description: 'Must be set when the strategy is used.' })),
  },
  { description: 'A parameter of a strategy type.' },
);

export const StateStrategyType = Type.Object(
  {
    name: Type.String({
      pattern: '^[a-zA-Z0-9_.~-]{1,100}$',
      description: 'Strategy type name (1-100 URL-safe characters).',
    }),
    title: Text('Title (Unleash 5.x documents name it `displayName`, also read).'),
    displayName: Text('Title, as Unleash 5.x names it (read when `title` is absent; not exported).'),
    description: Text('Strategy type description.'),
    editable: Type.Optional(
      Type.Boolean({ description: 'False for built-in types, which an import never changes.' }),
    ),
    deprecated: Type.Optional(Type.Boolean({ description: 'Whether the type is deprecated.' })),
    parameters: Type.Optional(
      Type.Array(StateStrategyParameter, { maxItems: 100, description: 'The parameters of the type.' }),
    ),
  },
  { description: 'A strategy type (definition); built-in ones are exported but never imported.' },
);

export const StateSegment = Type.Object(
  {
    id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_ID,
        description:
          'Segment id in the document: what strategies refer to; kept when free here, else a new one.',
      }),
    ),
    name: Type.String({ minLength: 1, maxLength: 255, description: 'Segment name: matched by name here.' }),
    description: Text('Segment description.'),
    project: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
        description: 'The project the segment belongs to; null for a global segment.',
      }),
    ),
    constraints: Type.Array(ConstraintSchema, { description: 'The constraints of the segment.' }),
  },
  { description: 'A segment.' },
);

export const StateFlagStrategySegment = Type.Object(
  {
    featureStrategyId: Name('The id of a strategy in featureStrategies.'),
    segmentId: Type.Integer({
      minimum: 1,
      maximum: MAX_ID,
      description: 'The id of a segment in segments (or of a segment that exists here).',
    }),
  },
  { description: 'A segment used by a strategy (Unleash 5.x `featureStrategySegments`).' },
);

export const StateFlag = Type.Object(
  {
    name: Type.String({ pattern: FLAG_NAME_PATTERN, description: 'Flag name (URL-safe, 1-100 characters).' }),
    project: Name('The project the flag belongs to.'),
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Flag type (default release).' }),
    ),
    description: Text('Flag description.'),
    stale: Type.Optional(Type.Boolean({ description: 'Whether the flag is stale.' })),
    impressionData: Type.Optional(Type.Boolean({ description: 'Whether SDKs emit impression events.' })),
    archived: Type.Optional(Type.Boolean({ description: 'Archived flags are not imported.' })),
  },
  { description: 'A flag.' },
);

export const StateFlagStrategy = Type.Object(
  {
    id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Strategy id, kept when free.' }),
    ),
    featureName: Name('The flag.'),
    projectId: Type.Optional(Name('The flag’s project (informative).')),
    environment: Name('The environment.'),
    strategyName: Name('Strategy type name.'),
    title: Text('Descriptive title.'),
    disabled: Type.Optional(Type.Boolean({ description: 'Whether the strategy is switched off.' })),
    sortOrder: Type.Optional(Type.Integer({ description: 'Evaluation order.' })),
    parameters: Type.Optional(
      Type.Record(Type.String(), Type.String(), { description: 'Strategy parameters, as text.' }),
    ),
    constraints: Type.Optional(Type.Array(ConstraintSchema, { description: 'Constraints.' })),
    variants: Type.Optional(Type.Array(StrategyVariantSchema, { description: 'Strategy variants.' })),
    segments: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: MAX_ID }), {
        description:
          'Segment ids, as in segments (or of segments that exist here); featureStrategySegments adds to them. Not exported.',
      }),
    ),
  },
  { description: 'A strategy of a flag in an environment.' },
);

export const StateFlagEnvironment = Type.Object(
  {
    featureName: Name('The flag.'),
    environment: Name('The environment.'),
    enabled: Type.Boolean({ description: 'Whether the flag is on there.' }),
    variants: Type.Optional(Type.Array(FlagVariantSchema, { description: 'The flag’s variants there.' })),
  },
  { description: 'A flag in an environment.' },
);

export const StateTagType = Type.Object(
  {
    name: Type.String({ minLength: 2, maxLength: 50, description: 'Tag type name.' }),
    description: Text('Tag type description.'),
    icon: Text('Icon.'),
    color: Text('Colour.'),
  },
  { description: 'A tag type.' },
);

export const StateTag = Type.Object(
  {
    type: Type.String({ minLength: 2, maxLength: 50, description: 'Tag type.' }),
    value: Type.String({ minLength: 2, maxLength: 50, description: 'Tag value.' }),
  },
  { description: 'A tag.' },
);

export const StateFlagTag = Type.Object(
  {
    featureName: Name('The flag.'),
    tagType: Type.String({ minLength: 2, maxLength: 50, description: 'Tag type.' }),
    tagValue: Type.String({ minLength: 2, maxLength: 50, description: 'Tag value.' }),
  },
  { description: 'A tag on a flag.' },
);

const list = <T extends Parameters<typeof Type.Array>[0]>(item: T, description: string) =>
  Type.Optional(Type.Array(item, { description }));

export const StateDocument = Type.Object(
  {
    version: Type.Integer({
      minimum: 1,
      maximum: 4,
      description: 'Document version (1-4 accepted; export writes 4).',
    }),
    environments: list(StateEnvironment, 'Environments: created when missing.'),
    projects: list(StateProject, 'Projects: created when missing.'),
    features: list(StateFlag, 'Flags.'),
    strategies: list(StateStrategyType, 'Strategy types: custom ones created when missing.'),
    featureStrategies: list(StateFlagStrategy, 'Strategies of the flags.'),
    featureEnvironments: list(StateFlagEnvironment, 'On/off and variants of the flags per environment.'),
    tagTypes: list(StateTagType, 'Tag types; missing ones are created.'),
    tags: list(StateTag, 'Tags, created when missing; their types must be listed or exist.'),
    featureTags: list(StateFlagTag, 'Tags of the flags.'),
    segments: list(StateSegment, 'Segments: matched by name, created when missing.'),
    featureStrategySegments: list(StateFlagStrategySegment, 'The segments the strategies use.'),
  },
  { description: 'The state document (Unleash 5.x `stateSchema`).' },
);
export type StateDocumentInput = Static<typeof StateDocument>;

export const StateImportQuery = Type.Object({
  drop: Type.Optional(
    Type.String({
      description:
        'Default false; truthy = `true` or a non-zero number. True: first delete what is here of each kind the document lists (see the operation).',
    }),
  ),
  keep: Type.Optional(
    Type.String({
      description:
        'Default true; truthy = `true` or a non-zero number. True: flags that exist are left as they are; false: they become what the document says.',
    }),
  ),
});
export type StateImportQueryInput = Static<typeof StateImportQuery>;
