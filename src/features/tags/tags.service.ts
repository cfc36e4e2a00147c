import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import { appendEvent } from '../events/index.js';
import { findFlagArchivedState, lockFlag, lockFlagsInOrder } from '../flag-rows/index.js';
import type {
  CreateTagTypeInput,
  Tag,
  TagInputType,
  TagType,
  UpdateFlagTagsInput,
  UpdateTagTypeInput,
} from './tags.schemas.js';
import * as store from './tags.store.js';

const who = (by: Principal) => ({ createdBy: by.name, createdByUserId: by.userId });

/** Trims the value (as Unleash does) and checks its 2-50 characters. */
function cleanTag(input: TagInputType, path: string): Tag {
  const value = input.value.trim();
  if (value.length < 2 || value.length > 50) {
    throw invalidField(
      `${path}/value`,
      'A tag value must be 2-50 characters long (after trimming whitespace).',
    );
  }
  return { type: input.type, value };
}

async function requireTagType(db: Db, type: string, lock = false): Promise<TagType> {
  const found = await store.findTagType(db, type, lock);
  if (!found) throw notFound(`Could not find tag type "${type}".`);
  return found;
}

// ---- tags ----

export async function listTags(deps: Deps) {
  return { version: 1, tags: await store.listTags(deps.database.db) };
}

export async function listTagsOfType(deps: Deps, type: string) {
  await requireTagType(deps.database.db, type);
  return { version: 1, tags: await store.listTags(deps.database.db, type) };
}

export async function getTag(deps: Deps, tag: Tag) {
  const found = await store.findTag(deps.database.db, tag);
  if (!found) throw notFound(`Could not find tag "${tag.type}:${tag.value}".`);
  return { version: 1, tag: found };
}

export async function createTag(deps: Deps, input: TagInputType, by: Principal) {
  const tag = cleanTag(input, '/body');
  return transaction(deps.database.db, async (tx) => {
    await requireTagType(tx, tag.type);
    if (!(await store.insertTag(tx, tag))) {
      throw nameExists(`A tag of type "${tag.type}" with value "${tag.value}" already exists.`);
    }
    await appendEvent(tx, { type: 'tag-created', ...who(by), data: tag });
    return { version: 1, tag };
  });
}

/** Deleting a tag also takes it off every flag (ON DELETE CASCADE). */
export async function deleteTag(deps: Deps, tag: Tag, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    if (!(await store.deleteTag(tx, tag))) throw notFound(`Could not find tag "${tag.type}:${tag.value}".`);
    await appendEvent(tx, { type: 'tag-deleted', ...who(by), preData: tag });
  });
}

// ---- tag types ----

/** Kept while nothing changes (ADR 0009): the web UI asks on every flag page. */
export async function listTagTypes(deps: Deps, reads: Reads) {
  return reads.read('tag-types', async () => ({
    version: 1,
    tagTypes: await store.listTagTypes(deps.database.db),
  }));
}

export async function getTagType(deps: Deps, name: string) {
  return requireTagType(deps.database.db, name);
}

const newTagType = (input: CreateTagTypeInput): TagType => ({
  name: input.name,
  description: input.description ?? null,
  icon: input.icon ?? null,
  color: input.color ?? null,
});

export async function validateTagType(deps: Deps, input: CreateTagTypeInput) {
  if (await store.findTagType(deps.database.db, input.name)) {
    throw nameExists(`There already exists a tag type with the name "${input.name}".`);
  }
  return { valid: true, tagType: newTagType(input) };
}

export async function createTagType(deps: Deps, input: CreateTagTypeInput, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const created = await store.insertTagType(tx, newTagType(input));
    if (!created) throw nameExists(`There already exists a tag type with the name "${input.name}".`);
    await appendEvent(tx, { type: 'tag-type-created', ...who(by), data: created });
    return created;
  });
}

/** Partial update: absent keeps, null clears. */
export async function updateTagType(deps: Deps, name: string, input: UpdateTagTypeInput, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await requireTagType(tx, name, true);
    const after: TagType = {
      ...before,
      ...(input.description !== undefined && { description: input.description }),
      ...(input.icon !== undefined && { icon: input.icon }),
      ...(input.color !== undefined && { color: input.color }),
    };
    await store.updateTagType(tx, after);
    await appendEvent(tx, { type: 'tag-type-updated', ...who(by), data: after, preData: before });
  });
}

/** Deleting a tag type deletes its tags and takes them off every flag (ON DELETE CASCADE). */
export async function deleteTagType(deps: Deps, name: string, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const deleted = await store.deleteTagType(tx, name);
    if (!deleted) throw notFound(`Could not find tag type "${name}".`);
    await appendEvent(tx, { type: 'tag-type-deleted', ...who(by), preData: deleted });
  });
}

// ---- tags on a flag ----

/** The flag's project; `lock` (writes) locks the flag's row first (the lock order). */
async function requireFlag(db: Db, name: string, lock = true): Promise<string> {
  const project = (lock ? await lockFlag(db, name) : await findFlagArchivedState(db, name))?.project;
  if (!project) throw notFound(`Could not find feature flag with name "${name}".`);
  return project;
}

/** Kept while nothing changes (ADR 0009); an unknown flag's 404 is not kept. */
export async function listFlagTags(deps: Deps, reads: Reads, flag: string) {
  return reads.read(`flag-tags\u0000${flag}`, async () => {
    await requireFlag(deps.database.db, flag, false);
    return { version: 1, tags: await store.listFlagTags(deps.database.db, flag) };
  });
}

/** Creates the tag if needed (`tag-created`), links it (`feature-tagged`). */
async function addOne(tx: Db, flag: string, project: string, tag: Tag, by: Principal): Promise<boolean> {
  await requireTagType(tx, tag.type);
  if (await store.insertTag(tx, tag)) await appendEvent(tx, { type: 'tag-created', ...who(by), data: tag });
  if (!(await store.tagFlag(tx, flag, tag, by.userId))) return false;
  await appendEvent(tx, { type: 'feature-tagged', ...who(by), featureName: flag, project, data: tag });
  return true;
}

async function removeOne(tx: Db, flag: string, project: string, tag: Tag, by: Principal): Promise<boolean> {
  if (!(await store.untagFlag(tx, flag, tag))) return false;
  await appendEvent(tx, { type: 'feature-untagged', ...who(by), featureName: flag, project, preData: tag });
  return true;
}

export async function addFlagTag(deps: Deps, flag: string, input: TagInputType, by: Principal) {
  const tag = cleanTag(input, '/body');
  return transaction(deps.database.db, async (tx) => {
    const project = await requireFlag(tx, flag);
    if (!(await addOne(tx, flag, project, tag, by))) {
      throw nameExists(`The flag "${flag}" already has the tag "${tag.type}:${tag.value}".`);
    }
    return tag;
  });
}

export async function removeFlagTag(deps: Deps, flag: string, tag: Tag, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const project = await requireFlag(tx, flag);
    if (!(await removeOne(tx, flag, project, tag, by))) {
      throw notFound(`The flag "${flag}" has no tag "${tag.type}:${tag.value}".`);
    }
  });
}

/** Adds then removes; tags already on (or already off) the flag are skipped silently. */
export async function updateFlagTags(deps: Deps, flag: string, input: UpdateFlagTagsInput, by: Principal) {
  const added = input.addedTags.map((t, i) => cleanTag(t, `/body/addedTags/${i}`));
  const removed = input.removedTags.map((t, i) => cleanTag(t, `/body/removedTags/${i}`));
  return transaction(deps.database.db, async (tx) => {
    const project = await requireFlag(tx, flag);
    for (const tag of added) await addOne(tx, flag, project, tag, by);
    for (const tag of removed) await removeOne(tx, flag, project, tag, by);
    return { version: 1, tags: await store.listFlagTags(tx, flag) };
  });
}

/**
 * Adds and removes tags on several flags of a project in one transaction (`PUT
 * /api/admin/projects/:p/tags`): flags locked in name order, each flag as `updateFlagTags` would
 * change it; a flag not in the project is a 404 and nothing changes.
 */
export async function updateTagsOfFlags(
  deps: Deps,
  projectId: string,
  flags: string[],
  input: UpdateFlagTagsInput,
  by: Principal,
): Promise<void> {
  const added = input.addedTags.map((t, i) => cleanTag(t, `/body/tags/addedTags/${i}`));
  const removed = input.removedTags.map((t, i) => cleanTag(t, `/body/tags/removedTags/${i}`));
  const ordered = [...new Set(flags)].sort();
  await transaction(deps.database.db, async (tx) => {
    await lockFlagsInOrder(tx, ordered);
    for (const flag of ordered) {
      const project = await requireFlag(tx, flag);
      if (project !== projectId)
        throw notFound(`There's no feature named "${flag}" in project "${projectId}".`);
      for (const tag of added) await addOne(tx, flag, project, tag, by);
      for (const tag of removed) await removeOne(tx, flag, project, tag, by);
    }
  });
}
