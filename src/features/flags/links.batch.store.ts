import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import { ulid } from './links.service.js';

/** A link as an export carries it (Unleash's linkSchema): no id, the title may be null. */
export interface BatchLink {
  url: string;
  title: string | null;
}

interface LinkOfFlag {
  id: string;
  flag: string;
  url: string;
  title: string | null;
}

const CHUNK = 5_000;
const key = (flag: string, l: BatchLink) => `${flag}\u0000${l.url}\u0000${l.title ?? '\u0001'}`;

/** The links of the named flags, each flag's in the order the flag shows them (created, then id). */
export async function linksOfFlags(db: Kysely<DB>, names: string[]): Promise<LinkOfFlag[]> {
  const rows: LinkOfFlag[] = [];
  for (let i = 0; i < names.length; i += CHUNK) {
    const { rows: chunk } = await sql<LinkOfFlag>`SELECT id, feature_name AS flag, url, title
      FROM feature_links
      WHERE feature_name IN (SELECT jsonb_array_elements_text(${JSON.stringify(names.slice(i, i + CHUNK))}::jsonb))
      ORDER BY feature_name, created_at, id`.execute(db);
    rows.push(...chunk);
  }
  return rows;
}

/**
 * Makes the links of each listed flag exactly the given ones (url and title; the same link twice
 * counts twice), in the caller's transaction, which holds the flags' rows. A link already there is
 * kept with its id; the others are removed (`feature-link-removed`) and the missing ones added
 * (`feature-link-added`, a new id each, created in the given order), as the link routes record
 * them. The URLs must be checked by the caller. Returns the number of events recorded.
 */
export async function setLinksOfFlags(
  tx: Kysely<DB>,
  project: string,
  wanted: Map<string, BatchLink[]>,
  by: Principal,
  now: Date,
): Promise<number> {
  if (wanted.size === 0) return 0;
  const current = await linksOfFlags(tx, [...wanted.keys()]);
  // Each wanted link takes one current link with the same url and title, if any is left.
  const unmatched = new Map<string, LinkOfFlag[]>();
  for (const l of current) {
    const k = key(l.flag, l);
    unmatched.set(k, [...(unmatched.get(k) ?? []), l]);
  }
  const add: LinkOfFlag[] = [];
  for (const [flag, links] of wanted) {
    for (const l of links) {
      const same = unmatched.get(key(flag, l));
      if (same && same.length > 0) same.shift();
      else add.push({ id: ulid(now), flag, url: l.url, title: l.title });
    }
  }
  const remove = [...unmatched.values()].flat();
  for (let i = 0; i < remove.length; i += CHUNK) {
    const ids = remove.slice(i, i + CHUNK).map((l) => l.id);
    await sql`DELETE FROM feature_links
      WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`.execute(tx);
  }
  for (let i = 0; i < add.length; i += CHUNK) {
    // created_at a microsecond apart: the flag shows them in the document's order.
    await sql`INSERT INTO feature_links (id, feature_name, url, title, created_at)
      SELECT r.id, r.flag, r.url, r.title, now() + r.n * interval '1 microsecond'
      FROM jsonb_to_recordset(${JSON.stringify(add.slice(i, i + CHUNK).map((l, n) => ({ ...l, n: i + n })))}::jsonb)
        AS r(id text, flag text, url text, title text, n int)`.execute(tx);
  }
  const event = (type: string, l: LinkOfFlag, data?: unknown, preData?: unknown): NewEvent => ({
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    featureName: l.flag,
    project,
    data,
    preData,
  });
  const body = (l: LinkOfFlag) => ({ id: l.id, url: l.url, title: l.title });
  return appendEvents(tx, [
    ...remove.map((l) => event('feature-link-removed', l, undefined, body(l))),
    ...add.map((l) => event('feature-link-added', l, body(l))),
  ]);
}
