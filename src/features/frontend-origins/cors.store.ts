import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The settings row of the frontend API, named as Unleash names it. */
export const FRONTEND_SETTINGS = 'unleash.frontend';

/** The stored origins; undefined when none were ever set (the configured default applies). */
export async function readFrontendOrigins(db: Kysely<DB>): Promise<string[] | undefined> {
  const { rows } = await sql<{ origins: string[] | string | null }>`
    SELECT content->'frontendApiOrigins' AS origins FROM settings WHERE name = ${FRONTEND_SETTINGS}`.execute(
    db,
  );
  const origins = rows[0]?.origins;
  if (origins === undefined || origins === null) return undefined;
  return typeof origins === 'string' ? (JSON.parse(origins) as string[]) : origins;
}

/** Stores the origins; answers those stored before, read under the row's lock. */
export async function writeFrontendOrigins(db: Kysely<DB>, origins: string[]): Promise<string[] | undefined> {
  const { rows } = await sql<{ origins: string[] | string | null }>`
    SELECT content->'frontendApiOrigins' AS origins FROM settings WHERE name = ${FRONTEND_SETTINGS}
    FOR UPDATE`.execute(db);
  const content = JSON.stringify({ frontendApiOrigins: origins });
  await sql`INSERT INTO settings (name, content) VALUES (${FRONTEND_SETTINGS}, ${content}::jsonb)
    ON CONFLICT (name) DO UPDATE SET content = EXCLUDED.content`.execute(db);
  const before = rows[0]?.origins;
  if (before === undefined || before === null) return undefined;
  return typeof before === 'string' ? (JSON.parse(before) as string[]) : before;
}
