import { type Static, Type } from 'typebox';
import {
  ConstraintSchema,
  FLAG_NAME_PATTERN,
  FlagVariantSchema,
  StrategyVariantSchema,
} from '../flags/index.js';

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const Text = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()], { description }));

export const StateProject = Type.Object(
  {
    id: Name('Project id.'),
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Project name.' }),
    description: Text('Project description.'),
  },
  { description: 'A project (Unleash "Project (state import)"; further fields are ignored).' },
);

export const StateEnvironment = Type.Object(
  {
    name: Name('Environment name.'),
    type: Type.String({ minLength: 1, maxLength: 100, description: 'Environment type.' }),
    sortOrder: Type.Optional(Type.Integer({ description: 'Position in lists.' })),
    enabled: Type.Optional(Type.Boolean({ description: 'Whether the environment is enabled.' })),
  },
  { description: 'An environment.' },
);

export const StateStrategyType = Type.Object(
  {
    name: Name('Strategy type name.'),
    description: Text('Strategy type description.'),
  },
  { description: 'A strategy type (definition); further fields are ignored.' },
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
      Type.Array(Type.Integer(), { maxItems: 0, description: 'Segment ids: segments are not imported.' }),
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
    environments: list(StateEnvironment, 'Environments (must exist here).'),
    projects: list(StateProject, 'Projects (must exist here).'),
    features: list(StateFlag, 'Flags.'),
    strategies: list(StateStrategyType, 'Strategy types (must exist here).'),
    featureStrategies: list(StateFlagStrategy, 'Strategies of the flags.'),
    featureEnvironments: list(StateFlagEnvironment, 'On/off and variants of the flags per environment.'),
    tagTypes: list(StateTagType, 'Tag types; missing ones are created.'),
    tags: list(StateTag, 'Tags; their types must be listed or exist.'),
    featureTags: list(StateFlagTag, 'Tags of the flags.'),
    segments: Type.Optional(
      Type.Array(Type.Unknown(), { maxItems: 0, description: 'Segments are not imported: empty.' }),
    ),
    featureStrategySegments: Type.Optional(
      Type.Array(Type.Unknown(), {
        maxItems: 0,
        description: 'Strategy-segment links are not imported: empty.',
      }),
    ),
  },
  { description: 'The state document (Unleash 5.x `stateSchema`).' },
);
export type StateDocumentInput = Static<typeof StateDocument>;

export const StateImportQuery = Type.Object({
  drop: Type.Optional(
    Type.String({
      description: 'Refused when truthy (`true` or a non-zero number): dropping is not supported.',
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
