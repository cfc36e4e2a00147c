import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { TagSchema } from '../shapes/index.js';

const filter = (description: string, example: string) =>
  Type.Optional(Type.String({ maxLength: 2000, description, examples: [example] }));

const IS_OPS = 'Operators: IS, IS_NOT, IS_ANY_OF, IS_NONE_OF; a colon, then comma-separated values.';
const INCLUDE_OPS =
  'Operators: INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF, EXCLUDE_IF_ANY_OF, EXCLUDE_ALL; a colon, then comma-separated values.';

export const SearchQuerySchema = Type.Object({
  query: filter(
    'Comma-separated terms; a flag matches when any term is a case-insensitive substring of its name, description or one of its tags as type:value (`%`, `_` and `\\` match literally).',
    'checkout',
  ),
  project: filter(`Project ids. ${IS_OPS}`, 'IS:default'),
  type: filter(`Flag types. ${IS_OPS}`, 'IS_ANY_OF:release,experiment'),
  state: filter(`Flag states: active, stale, potentially-stale. ${IS_OPS}`, 'IS:stale'),
  lifecycle: filter(
    `Current lifecycle stages: initial, pre-live, live, completed, archived (IS/IS_ANY_OF with archived also returns archived flags). ${IS_OPS}`,
    'IS:live',
  ),
  createdBy: filter(`Ids of the users who created the flags (API tokens: -42). ${IS_OPS}`, 'IS:1'),
  tag: filter(`Tags as type:value. ${INCLUDE_OPS}`, 'INCLUDE:simple:team-a'),
  segment: filter(`Segment names used by any strategy of the flag. ${INCLUDE_OPS}`, 'INCLUDE:beta-users'),
  status: Type.Optional(
    Type.Union(
      [
        Type.String({ maxLength: 2000, description: 'One environment:enabled|disabled entry.' }),
        Type.Array(Type.String({ maxLength: 2000, description: 'One environment:enabled|disabled entry.' }), {
          maxItems: 100,
          description: 'Several entries (the parameter repeated).',
        }),
      ],
      {
        description:
          'environment:enabled or environment:disabled; repeat the parameter for several, which are OR-ed.',
        examples: ['production:enabled'],
      },
    ),
  ),
  createdAt: filter(
    'IS_BEFORE or IS_ON_OR_AFTER, a colon, a date as YYYY-MM-DD (UTC).',
    'IS_ON_OR_AFTER:2024-01-31',
  ),
  lastSeenAt: filter(
    'IS_BEFORE or IS_ON_OR_AFTER, a colon, a date as YYYY-MM-DD (UTC): when metrics last saw the flag in any environment; never-seen flags match neither.',
    'IS_BEFORE:2024-01-31',
  ),
  favorite: filter("IS:true only the caller's favorites, IS:false only the others.", 'IS:true'),
  favoritesFirst: filter("true puts the caller's favorite flags first; default false.", 'true'),
  archived: filter(
    'Deprecated: IS:true searches the archived flags instead of the active ones (lifecycle=IS:archived does too).',
    'IS:true',
  ),
  sortBy: filter(
    'createdAt (default), name, type, stale, project, lastSeenAt (never seen last) or environment:<name> (enabled first).',
    'name',
  ),
  sortOrder: filter(
    'asc (default) or desc; ties are broken by creation time, then name, in the same direction.',
    'desc',
  ),
  offset: filter('Matches to skip: an integer from 0; default 0.', '50'),
  limit: filter('Page size: an integer from 1 to 1000; default 50.', '50'),
});

const SearchEnvironmentSchema = Type.Object(
  {
    name: Type.String({ description: 'Environment name.', examples: ['production'] }),
    enabled: Type.Boolean({ description: 'Whether the flag is on in this environment.' }),
    type: Type.String({ description: 'Environment type.', examples: ['production'] }),
    sortOrder: Type.Number({ description: 'Environment sort order.' }),
    variantCount: Type.Number({ description: 'Number of variants in this environment.' }),
    lastSeenAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When metrics last saw the flag in this environment.',
      }),
    ),
    hasStrategies: Type.Boolean({ description: 'Any strategy defined.' }),
    hasEnabledStrategies: Type.Boolean({ description: 'Any enabled strategy defined.' }),
    yes: Type.Integer({ minimum: 0, description: 'Evaluations to true reported in the last hour.' }),
    no: Type.Integer({ minimum: 0, description: 'Evaluations to false reported in the last hour.' }),
    changeRequestIds: Type.Array(Type.Number({ description: 'A change request id.' }), {
      description: 'Open change requests (always empty: no change requests here).',
    }),
  },
  { description: 'The flag in one environment of its project.' },
);

export const SearchItemSchema = Type.Object(
  {
    name: Type.String({ description: 'Unique flag name.', examples: ['new-checkout'] }),
    type: Type.String({ description: 'Flag type.', examples: ['release'] }),
    description: Nullable(Type.String({ description: 'What the flag is for.' })),
    dependencyType: Type.Union([Type.Literal('parent'), Type.Literal('child'), Type.Null()], {
      description: 'parent: other flags depend on it; child: it depends on another flag; null: neither.',
    }),
    project: Type.String({ description: 'Project of the flag.', examples: ['default'] }),
    stale: Type.Boolean({ description: 'Whether the flag is marked stale.' }),
    potentiallyStale: Type.Boolean({
      description: "Not stale, but at least its type's expected lifetime old (docs/api.md §5).",
    }),
    favorite: Type.Boolean({ description: 'Whether the caller favorited the flag.' }),
    impressionData: Type.Boolean({ description: 'Impression data on or off.' }),
    createdAt: Nullable(Type.String({ format: 'date-time', description: 'Creation time.' })),
    archivedAt: Nullable(Type.String({ format: 'date-time', description: 'When the flag was archived.' })),
    createdBy: Type.Object(
      {
        id: Nullable(Type.Integer({ description: 'User id; -42 for admin tokens.' })),
        name: Type.String({ description: 'User or token name.' }),
        imageUrl: Type.String({ description: 'Avatar URL (Gravatar).' }),
      },
      { description: 'Who created the flag.' },
    ),
    environments: Type.Array(SearchEnvironmentSchema, {
      description: "The flag in each of its project's environments, by environment sort order.",
    }),
    segments: Type.Array(Type.String({ description: 'A segment name.' }), {
      description: 'Names of the segments any strategy of the flag uses, by name.',
    }),
    tags: Type.Array(TagSchema, { description: 'Tags on the flag, by type then value.' }),
    lifecycle: Type.Object(
      {
        stage: Type.String({ description: 'initial, pre-live, live, completed or archived.' }),
        status: Nullable(Type.String({ description: 'Detail of the stage, e.g. kept or discarded.' })),
        enteredStageAt: Type.String({ format: 'date-time', description: 'When the stage was entered.' }),
      },
      { description: 'Current lifecycle stage.' },
    ),
  },
  { description: 'A flag as the search lists it.' },
);
export type SearchItem = Static<typeof SearchItemSchema>;

export const SearchResultSchema = Type.Object(
  {
    features: Type.Array(SearchItemSchema, { description: 'One page of the matching flags, in sort order.' }),
    total: Type.Integer({
      description: 'Number of flags matching every filter, before paging.',
      examples: [10],
    }),
  },
  { description: 'A page of the flags matching the search.' },
);
export type SearchResult = Static<typeof SearchResultSchema>;
