import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import type { Banner, BannerInput } from './banners.schemas.js';
import {
  deleteBanner,
  findBanner,
  insertBanner,
  listBanners,
  replaceBanner,
  setBannerEnabled,
} from './banners.store.js';

const unknownBanner = (id: number) => notFound(`Could not find banner with id ${id}.`);

/** `banner-created`, `-updated`, `-deleted`: the banner as it is after and before. */
async function record(tx: Db, type: string, by: Principal, data?: Banner, preData?: Banner) {
  await appendEvent(tx, {
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    ...(data && { data }),
    ...(preData && { preData }),
  });
}

export const getBanners = async (deps: Deps) => ({ banners: await listBanners(deps.database.db) });

export async function createBanner(deps: Deps, input: BannerInput, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const banner = await insertBanner(tx, input, deps.now());
    await record(tx, 'banner-created', by, banner);
    return banner;
  });
}

/** Replaces the banner's content (`enabled` included); on/off changes only `enabled`. */
export async function updateBanner(
  deps: Deps,
  id: number,
  change: BannerInput | { enabled: boolean },
  by: Principal,
) {
  return transaction(deps.database.db, async (tx) => {
    const before = await findBanner(tx, id, true);
    if (!before) throw unknownBanner(id);
    const after =
      'message' in change
        ? await replaceBanner(tx, id, change)
        : await setBannerEnabled(tx, id, change.enabled);
    await record(tx, 'banner-updated', by, after, before);
    return after;
  });
}

export async function removeBanner(deps: Deps, id: number, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await findBanner(tx, id, true);
    if (!before) throw unknownBanner(id);
    await deleteBanner(tx, id);
    await record(tx, 'banner-deleted', by, undefined, before);
  });
}
