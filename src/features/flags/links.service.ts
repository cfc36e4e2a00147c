import { randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalidField, notFound } from '../../platform/http/errors.js';
import { notWebUrl, webUrl } from '../../platform/web-url.js';
import { appendEvent } from '../events/index.js';
import { lockFlag } from '../flag-rows/index.js';
import { notInProject } from './flags.service.js';
import type { LinkInput } from './links.schemas.js';
import { countLinks, deleteLink, findLink, insertLink, type LinkRow, updateLink } from './links.store.js';

/** As Unleash: a flag holds at most 10 links (403 InvalidOperationError beyond). */
export const MAX_LINKS_PER_FLAG = 10;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (as Unleash's link ids): 48 bits of milliseconds, then 80 random bits, in Crockford base32. */
export function ulid(now: Date): string {
  let time = now.getTime();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const random = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[(random[i] as number) % 32];
  return head + tail;
}

/**
 * As Unleash: a URL without a scheme gets `https://`; then only an absolute http(s) URL is a link
 * (webUrl), so a link never runs script when the UI opens it. Undefined otherwise. The link routes
 * and the import take links by this rule.
 */
export function linkUrl(raw: string): string | undefined {
  const url = withScheme(raw);
  return webUrl(url) ? url : undefined;
}

const withScheme = (raw: string) => {
  const trimmed = raw.trim();
  return /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
};

/** linkUrl, or a 400 that says why. */
function normaliseUrl(raw: string): string {
  const url = linkUrl(raw);
  if (url === undefined) throw invalidField('/body/url', notWebUrl(withScheme(raw), raw));
  return url;
}

const eventLink = (link: LinkRow) => ({ id: link.id, url: link.url, title: link.title });

interface LinkRef {
  projectId: string;
  featureName: string;
}

/** Locks the flag (the lock order: the flag row before its links) and checks its project. */
async function lockFlagOfProject(tx: Db, ref: LinkRef) {
  const flag = await lockFlag(tx, ref.featureName);
  if (!flag || flag.project !== ref.projectId) {
    throw notInProject(ref.featureName, ref.projectId, flag?.project);
  }
}

async function requireLink(tx: Db, ref: LinkRef, id: string): Promise<LinkRow> {
  const link = await findLink(tx, ref.featureName, id);
  if (!link) throw notFound(`Could not find link with id ${id} on feature flag ${ref.featureName}`);
  return link;
}

const eventBase = (ref: LinkRef, by: Principal) => ({
  createdBy: by.name,
  createdByUserId: by.userId,
  featureName: ref.featureName,
  project: ref.projectId,
});

export async function addLink(deps: Deps, ref: LinkRef, input: LinkInput, by: Principal): Promise<void> {
  const url = normaliseUrl(input.url);
  await transaction(deps.database.db, async (tx) => {
    await lockFlagOfProject(tx, ref);
    if ((await countLinks(tx, ref.featureName)) >= MAX_LINKS_PER_FLAG) {
      throw new AppError(
        'InvalidOperationError',
        `A feature flag can have at most ${MAX_LINKS_PER_FLAG} links; remove one before adding another.`,
      );
    }
    const link: LinkRow = { id: ulid(deps.now()), url, title: input.title || null };
    await insertLink(tx, ref.featureName, link);
    await appendEvent(tx, { ...eventBase(ref, by), type: 'feature-link-added', data: eventLink(link) });
  });
}

export async function changeLink(
  deps: Deps,
  ref: LinkRef,
  id: string,
  input: LinkInput,
  by: Principal,
): Promise<void> {
  const url = normaliseUrl(input.url);
  await transaction(deps.database.db, async (tx) => {
    await lockFlagOfProject(tx, ref);
    const before = await requireLink(tx, ref, id);
    const after: LinkRow = { id, url, title: input.title || null };
    await updateLink(tx, after);
    await appendEvent(tx, {
      ...eventBase(ref, by),
      type: 'feature-link-updated',
      data: eventLink(after),
      preData: eventLink(before),
    });
  });
}

export async function removeLink(deps: Deps, ref: LinkRef, id: string, by: Principal): Promise<void> {
  await transaction(deps.database.db, async (tx) => {
    await lockFlagOfProject(tx, ref);
    const before = await requireLink(tx, ref, id);
    await deleteLink(tx, id);
    await appendEvent(tx, {
      ...eventBase(ref, by),
      type: 'feature-link-removed',
      preData: eventLink(before),
    });
  });
}
