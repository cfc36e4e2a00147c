import type { Db } from '../../platform/db/index.js';

/**
 * A stored token: the hash of its secret (how it is found), the prefix shown when the secret
 * cannot be, and the secret sealed (platform/secret-box.ts; null for tokens older than migration 0034).
 */
export interface TokenRow {
  secret_hash: string;
  display_prefix: string;
  secret_sealed: string | null;
  name: string;
  expires_at: Date;
  enabled: boolean;
  created_by: string | null;
  created_at: Date;
  role_id: number;
  role_name: string;
  role_type: string;
  role_description: string | null;
}

const tokens = (db: Db) =>
  db
    .selectFrom('public_signup_tokens as t')
    .innerJoin('roles as r', 'r.id', 't.role_id')
    .select([
      't.secret_hash',
      't.display_prefix',
      't.secret_sealed',
      't.name',
      't.expires_at',
      't.enabled',
      't.created_by',
      't.created_at',
      't.role_id',
      'r.name as role_name',
      'r.type as role_type',
      'r.description as role_description',
    ]);

/** Every token, newest first. */
export function listTokens(db: Db): Promise<TokenRow[]> {
  return tokens(db).orderBy('t.created_at', 'desc').orderBy('t.secret_hash').execute();
}

/** The token with this secret hash; `lock` holds its row until the transaction ends. */
export async function findToken(db: Db, secretHash: string, lock = false): Promise<TokenRow | undefined> {
  let query = tokens(db).where('t.secret_hash', '=', secretHash);
  if (lock) query = query.forUpdate('t');
  return query.executeTakeFirst();
}

export async function insertToken(
  db: Db,
  token: {
    secretHash: string;
    displayPrefix: string;
    secretSealed: string;
    name: string;
    expiresAt: Date;
    roleId: number;
    createdBy: string;
    createdAt: Date;
  },
): Promise<void> {
  await db
    .insertInto('public_signup_tokens')
    .values({
      secret_hash: token.secretHash,
      display_prefix: token.displayPrefix,
      secret_sealed: token.secretSealed,
      name: token.name,
      expires_at: token.expiresAt,
      enabled: true,
      role_id: token.roleId,
      created_by: token.createdBy,
      created_at: token.createdAt,
    })
    .execute();
}

export async function updateToken(
  db: Db,
  secretHash: string,
  changes: { expires_at?: Date; enabled?: boolean },
): Promise<void> {
  await db.updateTable('public_signup_tokens').set(changes).where('secret_hash', '=', secretHash).execute();
}

/** Records that the user signed up with the token. */
export async function addTokenUser(db: Db, secretHash: string, userId: number, at: Date): Promise<void> {
  await db
    .insertInto('public_signup_tokens_user')
    .values({ secret_hash: secretHash, user_id: userId, created_at: at })
    .execute();
}

/** Who signed up with each of these tokens, in signup order (user id on ties). */
export async function tokenUserIds(db: Db, secretHashes: string[]): Promise<Map<string, number[]>> {
  const byToken = new Map<string, number[]>(secretHashes.map((hash) => [hash, []]));
  if (secretHashes.length === 0) return byToken;
  const rows = await db
    .selectFrom('public_signup_tokens_user')
    .select(['secret_hash', 'user_id'])
    .where('secret_hash', 'in', secretHashes)
    .orderBy('created_at')
    .orderBy('user_id')
    .execute();
  for (const row of rows) byToken.get(row.secret_hash)?.push(row.user_id);
  return byToken;
}

export interface RoleRow {
  id: number;
  name: string;
  type: string;
  description: string | null;
}

export function findRole(db: Db, id: number): Promise<RoleRow | undefined> {
  return db
    .selectFrom('roles')
    .select(['id', 'name', 'type', 'description'])
    .where('id', '=', id)
    .executeTakeFirst();
}
