import type { Kysely, Selectable } from 'kysely';
import type { BannersTable, DB } from '../../platform/db/schema.js';
import type { Banner, BannerInput } from './banners.schemas.js';

type Db = Kysely<DB>;

export function toBanner(row: Selectable<BannersTable>): Banner {
  return {
    id: row.id,
    enabled: row.enabled,
    message: row.message,
    variant: row.variant,
    sticky: row.sticky,
    icon: row.icon,
    link: row.link,
    linkText: row.link_text,
    dialogTitle: row.dialog_title,
    dialog: row.dialog,
    createdAt: row.created_at.toISOString(),
  };
}

/** The columns a banner's content sets (absent optional properties: none, enabled by default). */
const columns = (input: BannerInput) => ({
  message: input.message,
  enabled: input.enabled ?? true,
  variant: input.variant ?? 'info',
  sticky: input.sticky ?? false,
  icon: input.icon ?? null,
  link: input.link ?? null,
  link_text: input.linkText ?? null,
  dialog_title: input.dialogTitle ?? null,
  dialog: input.dialog ?? null,
});

export async function listBanners(db: Db) {
  return (await db.selectFrom('banners').selectAll().orderBy('id').execute()).map(toBanner);
}

export async function findBanner(db: Db, id: number, lock = false) {
  const query = db.selectFrom('banners').selectAll().where('id', '=', id);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  return row && toBanner(row);
}

export async function insertBanner(db: Db, input: BannerInput, now: Date) {
  return toBanner(
    await db
      .insertInto('banners')
      .values({ ...columns(input), created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function replaceBanner(db: Db, id: number, input: BannerInput) {
  return toBanner(
    await db
      .updateTable('banners')
      .set(columns(input))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function setBannerEnabled(db: Db, id: number, enabled: boolean) {
  return toBanner(
    await db
      .updateTable('banners')
      .set({ enabled })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

export async function deleteBanner(db: Db, id: number) {
  await db.deleteFrom('banners').where('id', '=', id).execute();
}
