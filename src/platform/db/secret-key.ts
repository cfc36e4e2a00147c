import { randomBytes } from 'node:crypto';
import { parseSecretKey } from '../secret-box.js';
import type { Database } from './database.js';
import { settingMadeOnce } from './setting-once.js';

const loaded = new WeakMap<Database, Promise<Buffer>>();

/**
 * The key that seals secrets kept for showing again (platform/secret-box.ts): `configured` (the
 * `SECRETS_KEY` setting) when given; otherwise one generated on first use and kept in the
 * `settings` row `secrets.key`, so that every instance on the database uses the same one
 * (docs/adr/0010). Read once per database. Call it outside a transaction: on the embedded engine
 * (one connection) it would wait for the transaction that waits for it.
 */
export function secretKey(database: Database, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return Promise.resolve(parseSecretKey(configured));
  let key = loaded.get(database);
  if (!key) {
    key = readOrCreate(database);
    loaded.set(database, key);
    key.catch(() => loaded.delete(database));
  }
  return key;
}

async function readOrCreate(database: Database): Promise<Buffer> {
  const stored = await settingMadeOnce(database.db, 'secrets.key', 'key', randomBytes(32).toString('base64'));
  if (stored === undefined) throw new Error('the secrets key row is missing');
  return parseSecretKey(stored);
}
