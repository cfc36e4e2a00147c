import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/** A database handle or an open transaction: store functions accept either. */
export type Db = Kysely<DB>;
export type { Database, Engine } from './database.js';
export { JOB_LEASES, takeJobLease, tryJobLease } from './lease.js';
export { likeLiteral } from './like.js';
export { planForManyRows } from './many-rows.js';
export { PREPARE_ALWAYS } from './pglite-prepared.js';
export { underSavepoint } from './savepoint.js';
export { settingMadeOnce } from './setting-once.js';
export { singleStatement, transaction, transactionRetries } from './transaction.js';
