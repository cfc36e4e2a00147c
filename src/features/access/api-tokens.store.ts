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
