import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { StoredVariant } from './variants.schemas.js';

/** Rows per statement in the batch write below: bounds one statement's JSON parameter. */
const CHUNK = 2000;

/** The variants of the named flags in one environment (flags without a row there are absent). */
export async function variantsOfFlags(
  db: Kysely<DB>,
  flags: string[],
  environment: string,
): Promise<Map<string, StoredVariant[]>> {
  if (flags.length === 0) return new Map();
  const { rows } = await sql<{ feature_name: string; variants: StoredVariant[] }>`
    SELECT feature_name, variants FROM feature_environments WHERE environment = ${environment}
      AND feature_name IN (SELECT jsonb_array_elements_text(${JSON.stringify(flags)}::jsonb))`.execute(db);
  return new Map(rows.map((r) => [r.feature_name, r.variants]));
}

/** Writes each flag's variants in one environment, a chunk of flags per statement. */
export async function saveVariantsOfFlags(
  db: Kysely<DB>,
  environment: string,
  variants: { flag: string; variants: StoredVariant[] }[],
): Promise<void> {
  for (let i = 0; i < variants.length; i += CHUNK) {
    const rows = JSON.stringify(variants.slice(i, i + CHUNK).map((v) => ({ f: v.flag, v: v.variants })));
    await sql`UPDATE feature_environments fe SET variants = r.v
      FROM jsonb_to_recordset(${rows}::jsonb) AS r(f text, v jsonb)
      WHERE fe.feature_name = r.f AND fe.environment = ${environment}`.execute(db);
  }
}
