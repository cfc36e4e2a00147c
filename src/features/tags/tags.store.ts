import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Tag, TagType } from './tags.schemas.js';

export async function listTags(db: Kysely<DB>, type?: string): Promise<Tag[]> {
  let q = db.selectFrom('tags').select(['type', 'value']);
  if (type !== undefined) q = q.where('type', '=', type);
  return q.orderBy('type').orderBy('value').execute();
}

export async function findTag(db: Kysely<DB>, tag: Tag): Promise<Tag | undefined> {
  return db
    .selectFrom('tags')
    .select(['type', 'value'])
    .where('type', '=', tag.type)
    .where('value', '=', tag.value)
    .executeTakeFirst();
}

/** Inserts the tag; false when it already exists. An unknown type fails on the foreign key (404). */
export async function insertTag(db: Kysely<DB>, tag: Tag): Promise<boolean> {
  const row = await db
    .insertInto('tags')
    .values({ type: tag.type, value: tag.value })
    .onConflict((oc) => oc.columns(['type', 'value']).doNothing())
    .returning('type')
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteTag(db: Kysely<DB>, tag: Tag): Promise<boolean> {
  const rows = await db
    .deleteFrom('tags')
    .where('type', '=', tag.type)
    .where('value', '=', tag.value)
    .returning('type')
    .execute();
  return rows.length > 0;
}

const tagTypeColumns = ['name', 'description', 'icon', 'color'] as const;

export async function listTagTypes(db: Kysely<DB>): Promise<TagType[]> {
  return db.selectFrom('tag_types').select(tagTypeColumns).orderBy('name').execute();
}

export async function findTagType(db: Kysely<DB>, name: string, lock = false): Promise<TagType | undefined> {
  const q = db.selectFrom('tag_types').select(tagTypeColumns).where('name', '=', name);
  return (lock ? q.forUpdate() : q).executeTakeFirst();
}

/** Inserts the tag type; undefined when the name is taken. */
export async function insertTagType(db: Kysely<DB>, t: TagType): Promise<TagType | undefined> {
  return db
    .insertInto('tag_types')
    .values(t)
    .onConflict((oc) => oc.column('name').doNothing())
    .returning(tagTypeColumns)
    .executeTakeFirst();
}

export async function updateTagType(db: Kysely<DB>, t: TagType): Promise<void> {
  await db
    .updateTable('tag_types')
    .set({ description: t.description, icon: t.icon, color: t.color })
    .where('name', '=', t.name)
    .execute();
}

/** Deletes the tag type; its tags and their flag links go with it (ON DELETE CASCADE). */
export async function deleteTagType(db: Kysely<DB>, name: string): Promise<TagType | undefined> {
  return db.deleteFrom('tag_types').where('name', '=', name).returning(tagTypeColumns).executeTakeFirst();
}

export async function listFlagTags(db: Kysely<DB>, flag: string): Promise<Tag[]> {
  return db
    .selectFrom('feature_tag')
    .select(['tag_type as type', 'tag_value as value'])
    .where('feature_name', '=', flag)
    .orderBy('tag_type')
    .orderBy('tag_value')
    .execute();
}

/** Links the tag to the flag; false when it was already linked. */
export async function tagFlag(db: Kysely<DB>, flag: string, tag: Tag, userId: number): Promise<boolean> {
  const row = await db
    .insertInto('feature_tag')
    .values({ feature_name: flag, tag_type: tag.type, tag_value: tag.value, created_by_user_id: userId })
    .onConflict((oc) => oc.columns(['feature_name', 'tag_type', 'tag_value']).doNothing())
    .returning('tag_type')
    .executeTakeFirst();
  return row !== undefined;
}

export async function untagFlag(db: Kysely<DB>, flag: string, tag: Tag): Promise<boolean> {
  const rows = await db
    .deleteFrom('feature_tag')
    .where('feature_name', '=', flag)
    .where('tag_type', '=', tag.type)
    .where('tag_value', '=', tag.value)
    .returning('tag_type')
    .execute();
  return rows.length > 0;
}

/** Gives the new flag `to` every tag of `from` (cloning a flag). */
export async function copyFlagTags(db: Kysely<DB>, from: string, to: string) {
  await sql`INSERT INTO feature_tag (feature_name, tag_type, tag_value, created_by_user_id)
    SELECT ${to}, tag_type, tag_value, created_by_user_id FROM feature_tag WHERE feature_name = ${from}
    ON CONFLICT DO NOTHING`.execute(db);
}

/** Tags a new flag (its create request may carry tags), creating tags that do not exist yet. */
export async function tagNewFlag(
  db: Kysely<DB>,
  name: string,
  tags: { type: string; value: string }[],
  userId: number,
): Promise<void> {
  if (tags.length === 0) return;
  await db
    .insertInto('tags')
    .values(tags.map((t) => ({ type: t.type, value: t.value })))
    .onConflict((oc) => oc.columns(['type', 'value']).doNothing())
    .execute();
  await db
    .insertInto('feature_tag')
    .values(
      tags.map((t) => ({
        feature_name: name,
        tag_type: t.type,
        tag_value: t.value,
        created_by_user_id: userId,
      })),
    )
    .onConflict((oc) => oc.columns(['feature_name', 'tag_type', 'tag_value']).doNothing())
    .execute();
}
