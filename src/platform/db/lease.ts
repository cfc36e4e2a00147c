import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/**
 * Keys of the transaction-level advisory locks that scheduled jobs take, one per job, so that of
 * several instances on one database only one runs a job at a time (the others skip that round).
 */
export const JOB_LEASES = {
  potentialStaleness: 42420101,
  clientDataRetention: 42420102,
  addonDelivery: 42420124,
  projectHealthHistory: 42420125,
  scheduledChangeRequests: 42420126,
  signalActions: 42420127,
  releasePlanProgressions: 42420128,
} as const;

/**
 * Takes the job's lease for the rest of the transaction, or answers false at once when another
 * instance holds it. The lease ends with the transaction, so a crashed instance never keeps it.
 */
export async function tryJobLease(tx: Kysely<DB>, key: number): Promise<boolean> {
  const result = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${key}) AS ok`.execute(tx);
  return result.rows[0]?.ok === true;
}

/** Waits for the job's lease and holds it for the rest of the transaction. */
export async function takeJobLease(tx: Kysely<DB>, key: number): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${key})`.execute(tx);
}
