import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Tag, TagType } from './tags.schemas.js';

/** Rows per statement in the batch writes below: bounds one statement's JSON parameter. */
const CHUNK = 2000;

function chunks<T>(items: T[]): T[][] {
  return Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) =>
    items.slice(i * CHUNK, (i + 1) * CHUNK),
  );
}

/** Inserts the tag types whose name is free; returns those inserted. */
export async function insertTagTypes(db: Kysely<DB>, types: TagType[]): Promise<TagType[]> {
  if (types.length === 0) return [];
  const { rows } = await sql<TagType>`INSERT INTO tag_types (name, description, icon, color)
    SELECT r.name, r.description, r.icon, r.color
    FROM jsonb_to_recordset(${JSON.stringify(types)}::jsonb) AS r(name text, description text, icon text, color text)
    ON CONFLICT (name) DO NOTHING RETURNING name, description, icon, color`.execute(db);
  return rows;
}

/** Inserts the tags that do not exist yet; returns those inserted. */
export async function insertTags(db: Kysely<DB>, tags: Tag[]): Promise<Tag[]> {
  const inserted: Tag[] = [];
  for (const part of chunks(tags)) {
    const { rows } = await sql<Tag>`INSERT INTO tags (type, value)
      SELECT r.type, r.value FROM jsonb_to_recordset(${JSON.stringify(part)}::jsonb) AS r(type text, value text)
      ON CONFLICT (type, value) DO NOTHING RETURNING type, value`.execute(db);
    inserted.push(...rows);
  }
  return inserted;
}

export interface FlagTag {
  flag: string;
  type: string;
  value: string;
}

/** The tags of the named flags. */
export async function tagsOfFlags(db: Kysely<DB>, flags: string[]): Promise<FlagTag[]> {
  if (flags.length === 0) return [];
  const { rows } = await sql<FlagTag>`SELECT feature_name AS flag, tag_type AS type, tag_value AS value
    FROM feature_tag WHERE feature_name IN (SELECT jsonb_array_elements_text(${JSON.stringify(flags)}::jsonb))
    ORDER BY feature_name, tag_type, tag_value`.execute(db);
  return rows;
}

export async function linkTags(db: Kysely<DB>, links: FlagTag[], userId: number): Promise<void> {
  for (const part of chunks(links)) {
    await sql`INSERT INTO feature_tag (feature_name, tag_type, tag_value, created_by_user_id)
      SELECT r.flag, r.type, r.value, ${userId}
      FROM jsonb_to_recordset(${JSON.stringify(part)}::jsonb) AS r(flag text, type text, value text)
      ON CONFLICT DO NOTHING`.execute(db);
  }
}

export async function unlinkTags(db: Kysely<DB>, links: FlagTag[]): Promise<void> {
  for (const part of chunks(links)) {
    await sql`DELETE FROM feature_tag t USING jsonb_to_recordset(${JSON.stringify(part)}::jsonb)
        AS r(flag text, type text, value text)
      WHERE t.feature_name = r.flag AND t.tag_type = r.type AND t.tag_value = r.value`.execute(db);
  }
}

/**
 * Deletes every flag tag, and with `tags` every tag, and with `tagTypes` every tag type (tags and
 * flag tags cascade from them). Locks every flag row (name order) first: flag tags hang off flags.
 */
export async function deleteTagData(
  db: Kysely<DB>,
  what: { tags: boolean; tagTypes: boolean },
): Promise<void> {
  await sql`SELECT name FROM features ORDER BY name FOR UPDATE`.execute(db);
  await sql`DELETE FROM feature_tag`.execute(db);
  if (what.tags || what.tagTypes) await sql`DELETE FROM tags`.execute(db);
  if (what.tagTypes) await sql`DELETE FROM tag_types`.execute(db);
}
