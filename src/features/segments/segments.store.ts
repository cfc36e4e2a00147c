import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface SegmentRow {
  id: number;
  name: string;
  description: string | null;
  project: string | null;
  constraints: unknown[];
  createdBy: string | null;
  createdAt: Date;
  usedInFeatures: number;
  usedInProjects: number;
}

function segmentQuery(db: Kysely<DB>) {
  return db
    .selectFrom('segments as g')
    .select([
      'g.id',
      'g.name',
      'g.description',
      'g.segment_project_id',
      'g.constraints',
      'g.created_by',
      'g.created_at',
    ])
    .select([
      sql<number>`(SELECT count(DISTINCT s.feature_name)::int FROM feature_strategy_segment l
        JOIN feature_strategies s ON s.id = l.feature_strategy_id WHERE l.segment_id = g.id)`.as(
        'used_in_features',
      ),
      sql<number>`(SELECT count(DISTINCT f.project)::int FROM feature_strategy_segment l
        JOIN feature_strategies s ON s.id = l.feature_strategy_id
        JOIN features f ON f.name = s.feature_name WHERE l.segment_id = g.id)`.as('used_in_projects'),
    ]);
}

type Raw = Awaited<ReturnType<ReturnType<typeof segmentQuery>['executeTakeFirstOrThrow']>>;

const toRow = (r: Raw): SegmentRow => ({
  id: r.id,
  name: r.name,
  description: r.description,
  project: r.segment_project_id,
  constraints: r.constraints,
  createdBy: r.created_by,
  createdAt: r.created_at,
  usedInFeatures: Number(r.used_in_features),
  usedInProjects: Number(r.used_in_projects),
});

export async function listSegments(db: Kysely<DB>): Promise<SegmentRow[]> {
  return (await segmentQuery(db).orderBy('g.id').execute()).map(toRow);
}

export async function findSegment(db: Kysely<DB>, id: number, lock = false): Promise<SegmentRow | undefined> {
  if (lock) await db.selectFrom('segments').select('id').where('id', '=', id).forUpdate().execute();
  const row = await segmentQuery(db).where('g.id', '=', id).executeTakeFirst();
  return row && toRow(row);
}

export interface SegmentValues {
  name: string;
  description: string | null;
  project: string | null;
  constraints: unknown[];
}

/** Inserts the segment; undefined when the name is taken (the unique index decides). */
export async function insertSegment(db: Kysely<DB>, s: SegmentValues, createdBy: string) {
  const row = await db
    .insertInto('segments')
    .values({
      name: s.name,
      description: s.description,
      segment_project_id: s.project,
      constraints: JSON.stringify(s.constraints),
      created_by: createdBy,
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Updates the segment; a taken name fails with the unique violation (409 through pg-errors). */
export async function updateSegment(db: Kysely<DB>, id: number, s: SegmentValues) {
  await db
    .updateTable('segments')
    .set({
      name: s.name,
      description: s.description,
      segment_project_id: s.project,
      constraints: JSON.stringify(s.constraints),
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteSegment(db: Kysely<DB>, id: number) {
  await db.deleteFrom('segments').where('id', '=', id).execute();
}

export async function projectExists(db: Kysely<DB>, id: string): Promise<boolean> {
  const row = await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/** The strategies that use the segment, in a stable order. */
export async function strategiesUsingSegment(db: Kysely<DB>, id: number) {
  return db
    .selectFrom('feature_strategy_segment as l')
    .innerJoin('feature_strategies as s', 's.id', 'l.feature_strategy_id')
    .innerJoin('features as f', 'f.name', 's.feature_name')
    .select([
      's.id',
      's.feature_name as featureName',
      'f.project as projectId',
      's.environment',
      's.strategy_name as strategyName',
    ])
    .where('l.segment_id', '=', id)
    .orderBy('s.feature_name')
    .orderBy('s.environment')
    .orderBy('s.sort_order')
    .orderBy('s.id')
    .execute();
}

export async function segmentNameTaken(db: Kysely<DB>, name: string): Promise<boolean> {
  return (
    (await db.selectFrom('segments').select('id').where('name', '=', name).executeTakeFirst()) !== undefined
  );
}

/** The segments a strategy uses, by id (none for an unknown strategy). */
export async function segmentsOfStrategy(db: Kysely<DB>, strategyId: string): Promise<SegmentRow[]> {
  const rows = await segmentQuery(db)
    .where('g.id', 'in', (eb) =>
      eb
        .selectFrom('feature_strategy_segment')
        .select('segment_id')
        .where('feature_strategy_id', '=', strategyId),
    )
    .orderBy('g.id')
    .execute();
  return rows.map(toRow);
}
