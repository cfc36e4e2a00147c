import { type Static, Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';
import { ConstraintSchema } from './strategy.schemas.js';
import { ConstraintsBody } from './strategy-body.schemas.js';

/** A segment as the segment routes take and answer it, and as a segment change names it. */
export const UpsertSegmentBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Unique segment name.',
      examples: ['beta-users'],
    }),
    description: Type.Optional(
      Nullable(
        Type.String({ maxLength: 10_000, description: 'What the segment is for.', examples: ['Beta users'] }),
      ),
    ),
    project: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 100,
          description: 'The project the segment is limited to; absent or null: global.',
          examples: ['default'],
        }),
      ),
    ),
    constraints: ConstraintsBody,
  },
  { description: 'A segment to create, or the new content of one (name and constraints required).' },
);
export type UpsertSegmentInput = Static<typeof UpsertSegmentBody>;

export const AdminSegmentSchema = Type.Object(
  {
    id: Type.Integer({ description: 'The segment id.', examples: [1] }),
    name: Type.String({ description: 'Segment name.', examples: ['beta-users'] }),
    description: Nullable(Type.String({ description: 'What the segment is for.' })),
    constraints: Type.Array(ConstraintSchema, { description: 'Constraints, all of which must hold.' }),
    usedInFeatures: Type.Integer({ description: 'Number of flags with a strategy using the segment.' }),
    usedInProjects: Type.Integer({ description: 'Number of projects with a strategy using the segment.' }),
    project: Nullable(Type.String({ description: 'The project the segment is limited to, if any.' })),
    createdBy: Nullable(Type.String({ description: 'Who created the segment.', examples: ['admin'] })),
    createdAt: Type.String({ format: 'date-time', description: 'When the segment was created.' }),
  },
  { description: 'A segment: a named, reusable list of constraints.' },
);
export type AdminSegment = Static<typeof AdminSegmentSchema>;
