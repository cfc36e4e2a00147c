import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import {
  deleteEnvironmentsExcept,
  type ImportedEnvironment,
  insertEnvironments,
  updateEnvironments,
} from './environments.batch.store.js';
import { lockEnvironments } from './environments.store.js';

const eventData = (e: ImportedEnvironment) => ({
  name: e.name,
  type: e.type,
  sortOrder: e.sortOrder,
  enabled: e.enabled,
});

/**
 * Creates the listed environments that do not exist (`environment-import` each, as Unleash 5.x's
 * state import; no project gets them from this); with `keep` existing ones are left as they are,
 * without it they take the listed type, sort order and enabled state (`environment-import` with
 * preData, only when something changed). Protected environments never change. Returns the number
 * of events recorded.
 */
export async function importEnvironments(
  tx: Db,
  envs: ImportedEnvironment[],
  keep: boolean,
  by: Principal,
): Promise<number> {
  const existing = new Map(
    (
      await lockEnvironments(
        tx,
        envs.map((e) => e.name),
      )
    ).map((e) => [e.name, e]),
  );
  const fresh = envs.filter((e) => !existing.has(e.name));
  const changed = keep
    ? []
    : envs.flatMap((e) => {
        const before = existing.get(e.name);
        return before && !before.protected ? [{ before, after: e }] : [];
      });
  await insertEnvironments(tx, fresh);
  await updateEnvironments(
    tx,
    changed.map((c) => c.after),
  );
  const event = (e: ImportedEnvironment, before?: ImportedEnvironment): NewEvent => ({
    type: 'environment-import',
    createdBy: by.name,
    createdByUserId: by.userId,
    environment: e.name,
    data: eventData(e),
    preData: before && eventData(before),
  });
  return appendEvents(tx, [...fresh.map((e) => event(e)), ...changed.map((c) => event(c.after, c.before))]);
}

/**
 * The state import's `drop` of environments: every environment that is not protected and not
 * listed in the document is deleted with its project and flag configuration (cascade); the listed
 * ones are then imported as the document says. One `drop-environments` event.
 */
export async function dropEnvironments(tx: Db, listed: string[], by: Principal): Promise<number> {
  const names = await deleteEnvironmentsExcept(tx, listed);
  return appendEvents(tx, [
    {
      type: 'drop-environments',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { name: 'all-environments', count: names.length },
    },
  ]);
}
