import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The admin-editable fields of an application (the SDK sets the rest when it registers). */
export interface ApplicationEdit {
  description?: string;
  url?: string;
  color?: string;
  icon?: string;
}

export interface ApplicationValues {
  appName: string;
  description: string | null;
  url: string | null;
  color: string | null;
  icon: string | null;
}

const VALUES = sql`app_name AS "appName", description, url, color, icon`;

/** Locks and reads the application's editable fields (undefined: never registered). */
export async function lockApplication(
  db: Kysely<DB>,
  appName: string,
): Promise<ApplicationValues | undefined> {
  const { rows } = await sql<ApplicationValues>`SELECT ${VALUES} FROM client_applications
    WHERE app_name = ${appName} FOR UPDATE`.execute(db);
  return rows[0];
}

/**
 * Creates the application or changes the fields given (absent keeps), as Unleash's
 * `createApplication` upserts; returns the values after the change.
 */
export async function upsertApplication(
  db: Kysely<DB>,
  appName: string,
  edit: ApplicationEdit,
  createdBy: string,
): Promise<ApplicationValues> {
  const { rows } = await sql<ApplicationValues>`
    INSERT INTO client_applications (app_name, description, url, color, icon, created_by, updated_at)
    VALUES (${appName}, ${edit.description ?? null}, ${edit.url ?? null}, ${edit.color ?? null},
      ${edit.icon ?? null}, ${createdBy}, now())
    ON CONFLICT (app_name) DO UPDATE SET
      description = CASE WHEN ${edit.description !== undefined} THEN EXCLUDED.description ELSE client_applications.description END,
      url = CASE WHEN ${edit.url !== undefined} THEN EXCLUDED.url ELSE client_applications.url END,
      color = CASE WHEN ${edit.color !== undefined} THEN EXCLUDED.color ELSE client_applications.color END,
      icon = CASE WHEN ${edit.icon !== undefined} THEN EXCLUDED.icon ELSE client_applications.icon END,
      updated_at = now()
    RETURNING ${VALUES}`.execute(db);
  return rows[0] as ApplicationValues;
}

/** Deletes the application and its instances; its hourly flag metrics stay (flag usage history). */
export async function deleteApplication(db: Kysely<DB>, appName: string): Promise<void> {
  await sql`DELETE FROM client_instances WHERE app_name = ${appName}`.execute(db);
  await sql`DELETE FROM client_applications WHERE app_name = ${appName}`.execute(db);
}
