import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { ProjectIdParam, TagSchema } from '../shapes/index.js';
import { FlagSchema } from './flags.schemas.js';

export const ArchiveProjectParams = Type.Object({
  projectId: ProjectIdParam,
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
