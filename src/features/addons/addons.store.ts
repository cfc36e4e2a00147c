import { type ColumnType, type Generated, type Kysely, sql } from 'kysely';
import type { DB, Json, JsonDefault } from '../../platform/db/schema.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** The tables this slice owns (migrations/0024_addons.sql); only this slice writes them. */
export type AddonTables = {
  addons: {
    id: Generated<number>;
    provider: string;
    description: string | null;
    enabled: boolean;
    parameters: Json<Record<string, unknown>>;
    events: Json<string[]>;
    projects: Json<string[]>;
    environments: Json<string[]>;
    created_at: Timestamp;
    created_by_user_id: number | null;
    updated_by_user_id: number | null;
  };
  addon_delivery_cursor: {
    id: number;
    last_event_id: number;
    gaps: JsonDefault<{ id: number; seenAt: string }[]>;
    pending: JsonDefault<string[]>;
  };
  addon_deliveries: {
    id: Generated<number>;
    addon_id: number;
    event_id: number;
    attempts: Generated<number>;
    next_attempt_at: Timestamp;
    claimed_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  };
  integration_events: {
    id: Generated<number>;
    integration_id: number;
    created_at: Timestamp;
    state: 'success' | 'failed' | 'successWithErrors';
    state_details: string;
    event: Json<unknown>;
    details: Json<Record<string, unknown>>;
  };
};

export const tables = (db: Kysely<DB>) => db.withTables<AddonTables>();

export interface AddonRow {
  id: number;
  provider: string;
  description: string | null;
  enabled: boolean;
  parameters: Record<string, unknown>;
  events: string[];
  projects: string[];
  environments: string[];
  /** An addon receives the events recorded from then on. */
  created_at: Date;
  /**
   * Who chose its settings (migrations/0033): the creator and the last to update it, user ids
   * (-42: an admin API token); null on addons saved before these were recorded.
   */
  created_by_user_id: number | null;
  updated_by_user_id: number | null;
}
export type AddonValues = Omit<AddonRow, 'id' | 'created_at' | 'created_by_user_id' | 'updated_by_user_id'>;

const COLUMNS = [
  'id',
  'provider',
  'description',
  'enabled',
  'parameters',
  'events',
  'projects',
  'environments',
  'created_at',
  'created_by_user_id',
  'updated_by_user_id',
] as const;

export const ADDON_COLUMNS = COLUMNS;

const toRow = (values: AddonValues) => ({
  provider: values.provider,
  description: values.description,
  enabled: values.enabled,
  parameters: JSON.stringify(values.parameters),
  events: JSON.stringify(values.events),
  projects: JSON.stringify(values.projects),
  environments: JSON.stringify(values.environments),
});

export async function listAddons(db: Kysely<DB>, onlyEnabled = false): Promise<AddonRow[]> {
  let q = tables(db).selectFrom('addons').select(COLUMNS).orderBy('id');
  if (onlyEnabled) q = q.where('enabled', '=', true);
  return q.execute();
}

export async function findAddon(db: Kysely<DB>, id: number, lock = false): Promise<AddonRow | undefined> {
  const q = tables(db).selectFrom('addons').select(COLUMNS).where('id', '=', id);
  return (lock ? q.forUpdate() : q).executeTakeFirst();
}

/** `by`: the user id of who creates it (events' `createdByUserId`). */
export async function insertAddon(db: Kysely<DB>, values: AddonValues, by: number): Promise<AddonRow> {
  return tables(db)
    .insertInto('addons')
    .values({ ...toRow(values), created_by_user_id: by, updated_by_user_id: by })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function updateAddon(
  db: Kysely<DB>,
  id: number,
  values: AddonValues,
  by: number,
): Promise<AddonRow> {
  return tables(db)
    .updateTable('addons')
    .set({ ...toRow(values), updated_by_user_id: by })
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Deleting an addon deletes its pending deliveries and its delivery log (ON DELETE CASCADE). */
export async function deleteAddon(db: Kysely<DB>, id: number): Promise<void> {
  await tables(db).deleteFrom('addons').where('id', '=', id).execute();
}

export interface IntegrationEventRow {
  id: number;
  integration_id: number;
  created_at: Date;
  state: 'success' | 'failed' | 'successWithErrors';
  state_details: string;
  event: unknown;
  details: Record<string, unknown>;
}

/**
 * An addon's delivery log, newest first; with `onlyFlagEvents`, only the records of events about
 * a flag (those any signed-in user may read).
 */
export async function listIntegrationEvents(
  db: Kysely<DB>,
  addonId: number,
  page: { limit: number; offset: number; onlyFlagEvents: boolean },
): Promise<IntegrationEventRow[]> {
  let q = tables(db).selectFrom('integration_events').selectAll().where('integration_id', '=', addonId);
  if (page.onlyFlagEvents) q = q.where(sql<boolean>`event ->> 'featureName' IS NOT NULL`);
  return q.orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}
