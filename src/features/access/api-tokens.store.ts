import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface ApiTokenRow {
  tokenName: string;
  type: 'admin' | 'client' | 'frontend';
  environment: string | null;
  projects: string[];
  expiresAt: Date | null;
}

export async function findTokenByHash(db: Kysely<DB>, secretHash: string): Promise<ApiTokenRow | undefined> {
  const row = await db
    .selectFrom('api_tokens')
    .select(['token_name', 'type', 'environment', 'projects', 'expires_at'])
    .where('secret_hash', '=', secretHash)
    .executeTakeFirst();
  return (
    row && {
      tokenName: row.token_name,
      type: row.type,
      environment: row.environment,
      projects: row.projects,
      expiresAt: row.expires_at,
    }
  );
}

export async function countTokens(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('api_tokens')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface NewApiToken {
  secretHash: string;
  tokenName: string;
  type: 'admin' | 'client' | 'frontend';
  environment: string | null;
  projects: string[];
  displayPrefix: string;
  createdBy: string;
  expiresAt?: Date | null;
}

/** Inserts the token unless one with the same secret exists; returns whether it was new. */
export async function insertToken(db: Kysely<DB>, token: NewApiToken): Promise<boolean> {
  const inserted = await db
    .insertInto('api_tokens')
    .values({
      secret_hash: token.secretHash,
      token_name: token.tokenName,
      type: token.type,
      environment: token.environment,
      projects: token.projects,
      display_prefix: token.displayPrefix,
      created_by: token.createdBy,
      expires_at: token.expiresAt ?? null,
    })
    .onConflict((oc) => oc.column('secret_hash').doNothing())
    .returning('secret_hash')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Serialises first-start token bootstrap across instances sharing one database (until commit). */
export async function lockTokenBootstrap(db: Kysely<DB>): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(42420002)`.execute(db);
}

const listedColumns = [
  'secret_hash',
  'token_name',
  'type',
  'environment',
  'projects',
  'display_prefix',
  'alias',
  'expires_at',
  'seen_at',
  'created_at',
] as const;

/** Every token (optionally those with one name), newest first: never a secret, only its prefix. */
export async function listTokens(db: Kysely<DB>, tokenName?: string) {
  let query = db.selectFrom('api_tokens').select(listedColumns);
  if (tokenName !== undefined) query = query.where('token_name', '=', tokenName);
  return query.orderBy('created_at', 'desc').orderBy('secret_hash').execute();
}

export type ListedToken = Awaited<ReturnType<typeof listTokens>>[number];

/** The SDK tokens scoped to exactly this one project, newest first (project API tokens). */
export async function listProjectTokens(db: Kysely<DB>, projectId: string): Promise<ListedToken[]> {
  return db
    .selectFrom('api_tokens')
    .select(listedColumns)
    .where('type', '!=', 'admin')
    .where(sql<boolean>`projects = ARRAY[${projectId}]::text[]`)
    .orderBy('created_at', 'desc')
    .orderBy('secret_hash')
    .execute();
}

export async function findListedToken(db: Kysely<DB>, secretHash: string): Promise<ListedToken | undefined> {
  return db
    .selectFrom('api_tokens')
    .select(listedColumns)
    .where('secret_hash', '=', secretHash)
    .executeTakeFirst();
}

/** Deletes the token; returns it as it was, or undefined when there was none. */
export async function deleteToken(db: Kysely<DB>, secretHash: string): Promise<ListedToken | undefined> {
  return db
    .deleteFrom('api_tokens')
    .where('secret_hash', '=', secretHash)
    .returning(listedColumns)
    .executeTakeFirst();
}

export async function setTokenExpiry(db: Kysely<DB>, secretHash: string, expiresAt: Date) {
  return db
    .updateTable('api_tokens')
    .set({ expires_at: expiresAt })
    .where('secret_hash', '=', secretHash)
    .returning(listedColumns)
    .executeTakeFirst();
}

/** The ids among `ids` that are not active projects. */
export async function missingProjects(db: Kysely<DB>, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where('id', 'in', ids)
    .where('archived_at', 'is', null)
    .forShare()
    .execute();
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}

export async function environmentExists(db: Kysely<DB>, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('environments')
    .select('name')
    .where('name', '=', name)
    .forShare()
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A project is deleted: the API tokens scoped to it alone go, multi-project tokens lose it from
 * their list.
 */
export async function dropProjectFromTokens(db: Kysely<DB>, projectId: string): Promise<void> {
  await sql`DELETE FROM api_tokens WHERE projects = ARRAY[${projectId}]::text[]`.execute(db);
  await sql`UPDATE api_tokens SET projects = array_remove(projects, ${projectId})
    WHERE ${projectId} = ANY(projects)`.execute(db);
}
