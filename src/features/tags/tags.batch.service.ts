import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import {
  deleteTagData,
  insertTags,
  insertTagTypes,
  linkTags,
  tagsOfFlags,
  unlinkTags,
} from './tags.batch.store.js';
import type { Tag, TagType } from './tags.schemas.js';

const key = (t: { flag: string; type: string; value: string }) => `${t.flag}\u0000${t.type}\u0000${t.value}`;

/**
 * Creates the tag types that do not exist yet (`tag-type-created` each); existing ones are left as
 * they are. Returns the number of events recorded.
 */
export async function createMissingTagTypes(tx: Db, types: TagType[], by: Principal): Promise<number> {
  const created = await insertTagTypes(tx, types);
  return appendEvents(
    tx,
    created.map((t) => ({
      type: 'tag-type-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: t,
    })),
  );
}

/**
 * Makes the tags of each listed flag exactly the given ones, in the caller's transaction (which
 * holds the flags' rows): tags that do not exist yet are created (`tag-created`), missing links are
 * added (`feature-tagged`) and others removed (`feature-untagged`), as the flag tag routes record
 * them. The tag types must exist. Returns the number of events recorded.
 */
export async function setTagsOfFlags(
  tx: Db,
  project: string,
  wanted: Map<string, Tag[]>,
  by: Principal,
): Promise<number> {
  const want = [...wanted].flatMap(([flag, tags]) =>
    tags.map((t) => ({ flag, type: t.type, value: t.value })),
  );
  const wantKeys = new Set(want.map(key));
  const current = await tagsOfFlags(tx, [...wanted.keys()]);
  const currentKeys = new Set(current.map(key));
  const add = [...new Map(want.filter((t) => !currentKeys.has(key(t))).map((t) => [key(t), t])).values()];
  const remove = current.filter((t) => !wantKeys.has(key(t)));
  const distinct = new Map(add.map((t) => [`${t.type}\u0000${t.value}`, { type: t.type, value: t.value }]));
  const createdTags = await insertTags(tx, [...distinct.values()]);
  await unlinkTags(tx, remove);
  await linkTags(tx, add, by.userId);
  // Plain literals, no spreads: these are built by the thousand.
  const event = (
    type: string,
    featureName: string | undefined,
    data: unknown,
    preData?: unknown,
  ): NewEvent => ({
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    featureName,
    project: featureName === undefined ? undefined : project,
    data,
    preData,
  });
  const tag = (t: { type: string; value: string }) => ({ type: t.type, value: t.value });
  return appendEvents(tx, [
    ...createdTags.map((t) => event('tag-created', undefined, tag(t))),
    ...remove.map((t) => event('feature-untagged', t.flag, undefined, tag(t))),
    ...add.map((t) => event('feature-tagged', t.flag, tag(t))),
  ]);
}

/**
 * tagNewFlag for many new flags: creates the tags that do not exist yet and links them, recording
 * nothing of its own (as a flag created with tags: its `feature-created` event carries them).
 */
export async function tagNewFlags(tx: Db, tags: Map<string, Tag[]>, userId: number): Promise<void> {
  const links = [...tags].flatMap(([flag, list]) =>
    list.map((t) => ({ flag, type: t.type, value: t.value })),
  );
  if (links.length === 0) return;
  const distinct = new Map(links.map((t) => [`${t.type}\u0000${t.value}`, { type: t.type, value: t.value }]));
  await insertTags(tx, [...distinct.values()]);
  await linkTags(tx, links, userId);
}

/**
 * The state import's `drop` of tag data (Unleash 5.x): flag tags always, tags when `tags` (or
 * `tagTypes`, which they need) is set, tag types when `tagTypes` is set; one `drop-feature-tags`,
 * `drop-tags`, `drop-tag-types` event for each kind dropped. Returns the number of events recorded.
 */
export async function dropTagData(
  tx: Db,
  what: { tags: boolean; tagTypes: boolean },
  by: Principal,
): Promise<number> {
  await deleteTagData(tx, what);
  const drop = (type: string, name: string): NewEvent => ({
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    data: { name },
  });
  return appendEvents(tx, [
    drop('drop-feature-tags', 'all-feature-tags'),
    ...(what.tags || what.tagTypes ? [drop('drop-tags', 'all-tags')] : []),
    ...(what.tagTypes ? [drop('drop-tag-types', 'all-tag-types')] : []),
  ]);
}

/**
 * Creates the listed tags that do not exist yet (`tag-import` each, as Unleash's state import);
 * their types must exist. Returns the number of events recorded.
 */
export async function importTags(tx: Db, tags: Tag[], by: Principal): Promise<number> {
  const created = await insertTags(tx, tags);
  return appendEvents(
    tx,
    created.map((t) => ({
      type: 'tag-import',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { type: t.type, value: t.value },
    })),
  );
}
