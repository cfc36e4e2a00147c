import { type Static, type TSchema, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { FLAG_NAME_PATTERN, FLAG_TYPES } from '../flags/index.js';
import { ConstraintSchema, FlagVariantSchema, StrategyVariantSchema } from '../shapes/index.js';
import { TAG_TYPE_NAME_PATTERN } from '../tags/index.js';

const MAX_INT = 2_147_483_647;
const list = <T extends TSchema>(item: T, maxItems: number, description: string) =>
  Type.Array(item, { maxItems, description });

// ---- export (Unleash: exportQuerySchema → exportResultSchema) ----

export const ExportQueryBody = Type.Object(
  {
    environment: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The environment whose configuration is exported.',
      examples: ['development'],
    }),
    downloadFile: Type.Optional(
      Type.Boolean({
        description:
          'true: answered as a file download (`Content-Disposition: attachment; filename="export-<date>.json"`).',
        examples: [true],
      }),
    ),
    features: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100, description: 'A flag name.' }), {
        maxItems: 100_000,
        description:
          'Selects flags by name (archived ones included; unknown names are left out). An empty list selects like no list: `project` if given, else every active flag.',
        examples: [['new-checkout']],
      }),
    ),
    tag: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Selects the flags (archived ones included) with a tag of this value under any tag type, or of exactly this `type:value`. Wins over `features` and `project`.',
        examples: ['team-a'],
      }),
    ),
    project: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Selects the active flags of the project, when neither `tag` nor names are given.',
        examples: ['default'],
      }),
    ),
    segmentDefinitions: Type.Optional(
      Type.Boolean({
        description:
          'Default true: `segments` entries carry description, project and constraints. false: `{id, name}` only, as Unleash writes them (Unleash refuses the extra fields on import).',
        examples: [false],
      }),
    ),
  },
  {
    description:
      'What to export (Unleash exportQuerySchema): one environment and a selection by `tag`, by `features` names or by `project`; at least one of the three must be given.',
  },
);
export type ExportQuery = Static<typeof ExportQueryBody>;

const ExportFeature = Type.Object({
  name: Type.String({ description: 'Flag name.', examples: ['new-checkout'] }),
  description: Nullable(Type.String({ description: 'What the flag is for.' })),
  type: Type.String({ description: 'Flag type.', examples: ['release'] }),
  project: Type.String({ description: 'The project the flag was exported from.', examples: ['default'] }),
  stale: Type.Boolean({ description: 'Marked stale.' }),
  impressionData: Type.Boolean({ description: 'Impression data on or off.' }),
  archived: Type.Boolean({ description: 'Archived (only name and tag selections export archived flags).' }),
});

const ExportStrategy = Type.Object({
  name: Type.String({ description: 'Strategy type.', examples: ['flexibleRollout'] }),
  id: Type.String({ description: 'Strategy id; an import keeps it where no other strategy has it.' }),
  featureName: Type.String({ description: 'The flag.' }),
  title: Nullable(Type.String({ description: 'Descriptive title.' })),
  parameters: Type.Record(Type.String(), Type.String(), { description: 'Strategy parameters.' }),
  constraints: Type.Array(ConstraintSchema, { description: 'Constraints, all of which must hold.' }),
  variants: Type.Array(StrategyVariantSchema, { description: 'Strategy variants.' }),
  sortOrder: Type.Number({ description: 'Position in the flag environment.' }),
  disabled: Type.Boolean({ description: 'Disabled strategies are not evaluated.' }),
  segments: Type.Array(Type.Number(), { description: 'Ids of the segments used (named in `segments`).' }),
});

const ExportFeatureEnvironment = Type.Object({
  enabled: Type.Boolean({ description: 'On in the exported environment.' }),
  featureName: Type.String({ description: 'The flag.' }),
  environment: Type.String({ description: 'The exported environment.' }),
  variants: Type.Array(FlagVariantSchema, { description: 'The flag variants in that environment.' }),
  name: Type.String({ description: 'The flag (again, as Unleash writes it).' }),
});

const LegalValue = Type.Object({
  value: Type.String({ description: 'An allowed value.' }),
  description: Type.Optional(Type.String({ description: 'What the value means.' })),
});

const ExportContextField = Type.Object({
  name: Type.String({ description: 'Context field name.', examples: ['tier'] }),
  description: Nullable(Type.String({ description: 'What the field holds.' })),
  stickiness: Type.Boolean({ description: 'Usable for custom stickiness.' }),
  sortOrder: Type.Number({ description: 'Position in lists.' }),
  legalValues: Type.Array(LegalValue, { description: 'Allowed values (empty: any value).' }),
  project: Type.Optional(Type.String({ description: 'The project of a project-specific field.' })),
});

const ExportFeatureTag = Type.Object({
  featureName: Type.String({ description: 'The flag.' }),
  tagType: Type.String({ description: 'Tag type.', examples: ['simple'] }),
  tagValue: Type.String({ description: 'Tag value.', examples: ['team-a'] }),
});

const ExportTagType = Type.Object({
  name: Type.String({ description: 'Tag type name.', examples: ['simple'] }),
  description: Nullable(Type.String({ description: 'What the tag type is for.' })),
  icon: Nullable(Type.String({ description: 'Icon name.' })),
  color: Nullable(Type.String({ description: 'Hexadecimal colour.' })),
});

const ExportFlagLinks = Type.Object({
  feature: Type.String({ description: 'The flag.' }),
  links: Type.Array(
    Type.Object({
      url: Type.String({ description: 'The URL the flag is linked to.' }),
      title: Nullable(Type.String({ description: 'What the link is, if given.' })),
    }),
    { description: 'The links of the flag, in the order the flag shows them.' },
  ),
});

const ExportDependency = Type.Object({
  feature: Type.String({ description: 'The child flag.' }),
  dependencies: Type.Array(
    Type.Object({
      feature: Type.String({ description: 'A parent flag.' }),
      enabled: Type.Boolean({ description: 'Whether the parent must be enabled.' }),
      variants: Type.Optional(Type.Array(Type.String(), { description: 'Parent variants that count.' })),
    }),
    { description: 'The parents of the child.' },
  ),
});

export const ExportResultSchema = Type.Object(
  {
    features: Type.Array(ExportFeature, { description: 'The exported flags, by name.' }),
    featureStrategies: Type.Array(ExportStrategy, {
      description: 'The strategies of the exported flags in the environment, in evaluation order.',
    }),
    featureEnvironments: Type.Array(ExportFeatureEnvironment, {
      description: 'On/off and variants of each exported flag in the environment.',
    }),
    contextFields: Type.Array(ExportContextField, {
      description: 'The context fields the strategies and variants use (constraints, stickiness, overrides).',
    }),
    featureTags: Type.Array(ExportFeatureTag, { description: 'The tags of the exported flags.' }),
    segments: Type.Array(
      Type.Object({
        id: Type.Number({ description: 'Segment id in the exporting instance.' }),
        name: Type.String({ description: 'Segment name: what an import matches on.' }),
        description: Type.Optional(Nullable(Type.String({ description: 'What the segment is for.' }))),
        project: Type.Optional(
          Nullable(Type.String({ description: 'The project of a project-specific segment, else null.' })),
        ),
        constraints: Type.Optional(
          Type.Array(ConstraintSchema, {
            description: 'The segment’s constraints: an import creates a missing segment from them.',
          }),
        ),
      }),
      {
        description:
          'The segments the strategies use, with their definitions (beyond Unleash, which writes `{id, name}` only; `segmentDefinitions: false` leaves them out).',
      },
    ),
    tagTypes: Type.Array(ExportTagType, { description: 'The tag types of the exported tags.' }),
    dependencies: Type.Array(ExportDependency, { description: 'Parents of the exported flags.' }),
    links: Type.Array(ExportFlagLinks, {
      description: 'The links of the exported flags that have any (Unleash featureLinksSchema).',
    }),
  },
  { description: 'An export (Unleash exportResultSchema): what an import takes as `data`.' },
);
export type ExportResult = Static<typeof ExportResultSchema>;

// ---- import and validation (Unleash: importTogglesSchema → importTogglesValidateSchema) ----

/** A variant as exports carry it; checked (names, weights, payloads) by the import rules. */
const ImportVariant = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Variant name.' }),
  weight: Type.Number({ minimum: 0, maximum: 1000, description: 'Weight 0-1000.' }),
  weightType: Type.Optional(Type.Enum(['variable', 'fix'], { description: 'Default `variable`.' })),
  stickiness: Type.Optional(Type.String({ maxLength: 100, description: 'Default `default`.' })),
  payload: Type.Optional(
    Type.Object(
      {
        type: Type.Enum(['json', 'csv', 'string', 'number'], { description: 'Payload type.' }),
        value: Type.String({ maxLength: 100_000, description: 'The payload, stringified.' }),
      },
      { description: 'Data sent with the variant.' },
    ),
  ),
  overrides: Type.Optional(
    Type.Array(
      Type.Object({
        contextName: Type.String({ minLength: 1, maxLength: 100, description: 'Context field.' }),
        values: Type.Array(Type.String({ maxLength: 1000 }), { description: 'Values.' }),
      }),
      { description: 'Flag variants only: context values that always get the variant.' },
    ),
  ),
});

const ImportFeature = Type.Object({
  name: Type.String({ pattern: FLAG_NAME_PATTERN, description: 'Flag name.' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000, description: 'What it is for.' }))),
  type: Type.Optional(Type.Enum([...FLAG_TYPES], { description: 'Flag type (default release).' })),
  project: Type.Optional(Type.String({ description: 'Where it was exported from (not used).' })),
  stale: Type.Optional(Type.Boolean({ description: 'Stale (default false).' })),
  impressionData: Type.Optional(Type.Boolean({ description: 'Impression data (default false).' })),
  archived: Type.Optional(Type.Boolean({ description: 'Archived flags are not imported.' })),
});

const ImportStrategy = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Strategy type (must exist).' }),
  featureName: Type.String({ minLength: 1, maxLength: 100, description: 'A flag of `features`.' }),
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Kept when free.' })),
  title: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Title.' }))),
  parameters: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: 10_000 }), { description: 'Parameters.' }),
  ),
  constraints: Type.Optional(
    Type.Array(ConstraintSchema, { maxItems: 1000, description: 'Constraints, checked like on create.' }),
  ),
  variants: Type.Optional(Type.Array(ImportVariant, { maxItems: 100, description: 'Strategy variants.' })),
  sortOrder: Type.Optional(
    Type.Integer({ minimum: -MAX_INT, maximum: MAX_INT, description: 'Default: position in the list.' }),
  ),
  disabled: Type.Optional(Nullable(Type.Boolean({ description: 'Default false.' }))),
  segments: Type.Optional(
    Type.Array(Type.Integer({ description: 'A segment id of `segments`.' }), {
      maxItems: 1000,
      description: 'The segments the strategy uses, by their ids in `segments`.',
    }),
  ),
});

const ImportFeatureEnvironment = Type.Object({
  featureName: Type.Optional(Type.String({ maxLength: 100, description: 'The flag.' })),
  name: Type.Optional(Type.String({ maxLength: 100, description: 'The flag (used without featureName).' })),
  environment: Type.Optional(Type.String({ description: 'The exported environment (not used).' })),
  enabled: Type.Optional(Type.Boolean({ description: 'On or off in the target environment.' })),
  variants: Type.Optional(Type.Array(ImportVariant, { maxItems: 1000, description: 'Flag variants.' })),
});

const ImportContextField = Type.Object({
  name: Type.String({ pattern: FLAG_NAME_PATTERN, description: 'Context field name.' }),
  description: Type.Optional(
    Nullable(Type.String({ maxLength: 10_000, description: 'What the field holds.' })),
  ),
  stickiness: Type.Optional(Type.Boolean({ description: 'Usable for custom stickiness.' })),
  sortOrder: Type.Optional(
    Type.Integer({ minimum: -MAX_INT, maximum: MAX_INT, description: 'Position in lists.' }),
  ),
  legalValues: Type.Optional(
    Type.Array(
      Type.Object({
        value: Type.String({ minLength: 1, maxLength: 100, description: 'An allowed value.' }),
        description: Type.Optional(Type.String({ maxLength: 1000, description: 'What the value means.' })),
      }),
      {
        maxItems: 10_000,
        description: 'Allowed values; they must agree with an existing field of the name.',
      },
    ),
  ),
  project: Type.Optional(
    Nullable(Type.String({ maxLength: 100, description: 'The project of a project-specific field.' })),
  ),
});

const ImportData = Type.Object(
  {
    features: list(ImportFeature, 100_000, 'The flags to import.'),
    featureStrategies: list(ImportStrategy, 1_000_000, 'Their strategies (all of them: a list replaces).'),
    featureEnvironments: Type.Optional(
      list(ImportFeatureEnvironment, 100_000, 'On/off and variants; a flag left out keeps its own.'),
    ),
    contextFields: Type.Optional(list(ImportContextField, 10_000, 'Context fields to create if missing.')),
    featureTags: Type.Optional(
      list(
        Type.Object({
          featureName: Type.String({ maxLength: 100, description: 'A flag of `features`.' }),
          tagType: Type.String({ maxLength: 100, description: 'Tag type.' }),
          tagValue: Type.String({ maxLength: 200, description: 'Tag value.' }),
        }),
        1_000_000,
        'The tags of the flags (all of them: a list replaces).',
      ),
    ),
    segments: Type.Optional(
      list(
        Type.Object({
          id: Type.Integer({ description: 'Segment id in the exporting instance.' }),
          name: Type.String({
            minLength: 1,
            maxLength: 1000,
            description: 'Segment name: what the target matches.',
          }),
          description: Type.Optional(
            Nullable(Type.String({ maxLength: 10_000, description: 'What the segment is for.' })),
          ),
          project: Type.Optional(
            Nullable(Type.String({ maxLength: 100, description: 'Set: the segment is project-specific.' })),
          ),
          constraints: Type.Optional(
            Type.Array(ConstraintSchema, {
              maxItems: 1000,
              description: 'The definition: with it, a segment missing in the target is created.',
            }),
          ),
        }),
        10_000,
        'The segments the strategies use, matched by name in the target; one missing there is created when the entry has `constraints`.',
      ),
    ),
    tagTypes: list(
      Type.Object({
        name: Type.String({ pattern: TAG_TYPE_NAME_PATTERN, description: 'Tag type name.' }),
        description: Type.Optional(
          Nullable(Type.String({ maxLength: 10_000, description: 'What the tag type is for.' })),
        ),
        icon: Type.Optional(Nullable(Type.String({ maxLength: 1000, description: 'Icon name.' }))),
        color: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'Hexadecimal colour.' }))),
      }),
      10_000,
      'Tag types to create if missing.',
    ),
    dependencies: Type.Optional(
      list(
        Type.Object({
          feature: Type.String({ maxLength: 100, description: 'The child flag.' }),
          dependencies: Type.Array(
            Type.Object({
              feature: Type.String({ maxLength: 100, description: 'A parent flag.' }),
              enabled: Type.Optional(
                Type.Boolean({ description: 'Whether the parent must be enabled (default true).' }),
              ),
              variants: Type.Optional(
                Type.Array(Type.String({ maxLength: 255 }), {
                  maxItems: 1000,
                  description: 'Parent variants that count.',
                }),
              ),
            }),
            { maxItems: 1000, description: 'The parents of the child.' },
          ),
        }),
        100_000,
        'Parents per child flag (the list replaces the flag’s parents).',
      ),
    ),
    links: Type.Optional(
      list(
        Type.Object({
          feature: Type.String({ maxLength: 100, description: 'The flag.' }),
          links: Type.Array(
            Type.Object({
              url: Type.String({
                minLength: 1,
                maxLength: 9_000,
                description: 'The URL (http or https; without a scheme, https is assumed).',
              }),
              title: Type.Optional(
                Nullable(Type.String({ maxLength: 255, description: 'What the link is.' })),
              ),
            }),
            { maxItems: 1000, description: 'The links of the flag.' },
          ),
        }),
        100_000,
        'Links per flag: when given, each imported flag’s links become the listed ones (none if the flag is not listed).',
      ),
    ),
  },
  { description: 'An export (exportResultSchema).' },
);
export type ImportDataInput = Static<typeof ImportData>;

export const ImportBody = Type.Object(
  {
    project: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The project to import into.',
      examples: ['default'],
    }),
    environment: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The environment whose configuration the document sets.',
      examples: ['development'],
    }),
    data: ImportData,
  },
  { description: 'A document to import (Unleash importTogglesSchema), as JSON or YAML.' },
);
export type ImportInput = Static<typeof ImportBody>;

export const ImportItemSchema = Type.Object({
  message: Type.String({ description: 'What was found.' }),
  affectedItems: Type.Array(Type.String(), { description: 'Which items.' }),
});
export type ImportItem = Static<typeof ImportItemSchema>;

export const ImportValidationSchema = Type.Object(
  {
    errors: Type.Array(ImportItemSchema, {
      description: 'What prevents the import; empty: it can be applied.',
    }),
    warnings: Type.Array(ImportItemSchema, { description: 'What the import will do that may surprise.' }),
    permissions: Type.Array(ImportItemSchema, {
      description: 'Permissions the caller lacks for this import (display names).',
    }),
    changes: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Beyond Unleash, when the import could be applied: how many changes (events) it would record; 0: the project already is as the document says, importing changes nothing.',
        examples: [0],
      }),
    ),
  },
  { description: 'The outcome of validating an import (Unleash importTogglesValidateSchema).' },
);
export type ImportValidation = Static<typeof ImportValidationSchema>;
