import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface LinkRow {
  id: string;
  url: string;
  title: string | null;
}

export async function countLinks(db: Kysely<DB>, feature: string): Promise<number> {
  const row = await db
    .selectFrom('feature_links')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('feature_name', '=', feature)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertLink(db: Kysely<DB>, feature: string, link: LinkRow): Promise<void> {
  await db
    .insertInto('feature_links')
    .values({ ...link, feature_name: feature })
    .execute();
}

export async function findLink(db: Kysely<DB>, feature: string, id: string): Promise<LinkRow | undefined> {
  return db
    .selectFrom('feature_links')
    .select(['id', 'url', 'title'])
    .where('feature_name', '=', feature)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateLink(db: Kysely<DB>, link: LinkRow): Promise<void> {
  await db
    .updateTable('feature_links')
    .set({ url: link.url, title: link.title })
    .where('id', '=', link.id)
    .execute();
}

export async function deleteLink(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('feature_links').where('id', '=', id).execute();
}
