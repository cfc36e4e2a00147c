import type { Db } from '../../platform/db/index.js';
import { type Grant, TOKEN_USER_ID } from '../../platform/http/auth.js';
import { mayReadEvent } from '../events/index.js';
import { grantsOfUser } from '../users/index.js';
import type { AddonRow } from './addons.store.js';

export type EventReader = (event: { featureName: string | null }) => boolean;

/**
 * The permissions of one of the users who chose an addon's settings, as of now: an admin token
 * holds ADMIN; null (an addon older than migrations/0033, whoever saved it) is taken as a
 * signed-in user without special rights, since Editors could save addons then; a user deleted
 * since holds none.
 */
async function ownerGrants(db: Db, userId: number | null): Promise<Grant[] | undefined> {
  if (userId === null) return [];
  if (userId === TOKEN_USER_ID) return [{ permission: 'ADMIN' }];
  return grantsOfUser(db, userId);
}

/**
 * For each addon, which events it may carry: those that its creator and its last updater may
 * both read now (events.auth.ts). Both count: an Editor who points an Admin's addon at their own
 * URL must not receive what only the Admin may read, nor an Editor's addon what an Admin added.
 */
export async function eventReaders(db: Db, addons: Iterable<AddonRow>): Promise<Map<number, EventReader>> {
  const list = [...addons];
  const ids = new Set(list.flatMap((a) => [a.created_by_user_id, a.updated_by_user_id]));
  const grants = new Map<number | null, Grant[] | undefined>();
  for (const id of ids) grants.set(id, await ownerGrants(db, id));
  return new Map(
    list.map((a) => {
      const of = [grants.get(a.created_by_user_id), grants.get(a.updated_by_user_id)];
      return [a.id, (event) => of.every((g) => mayReadEvent(g, event))];
    }),
  );
}
