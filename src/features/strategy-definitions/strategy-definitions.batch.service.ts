import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import {
  deleteUnusedCustomStrategyTypes,
  insertStrategyTypes,
  lockStrategyTypes,
  updateStrategyTypes,
} from './strategy-definitions.batch.store.js';
import type { StrategyRow } from './strategy-definitions.store.js';

/** A custom strategy type as a state document defines it. */
export type ImportedStrategyType = Omit<StrategyRow, 'builtIn'>;

const eventData = (t: ImportedStrategyType) => ({
  name: t.name,
  title: t.title,
  displayName: t.title,
  description: t.description,
  editable: true,
  deprecated: t.deprecated,
  parameters: t.parameters,
});

/**
 * Creates the listed strategy types that do not exist (`strategy-import` each, as Unleash 5.x's
 * state import); with `keep` existing ones are left as they are, without it custom ones become
 * what the list says (`strategy-import` with preData, only when something changed). Built-in
 * strategy types never change. Returns the number of events recorded.
 */
export async function importStrategyTypes(
  tx: Db,
  types: ImportedStrategyType[],
  keep: boolean,
  by: Principal,
): Promise<number> {
  const existing = new Map(
    (
      await lockStrategyTypes(
        tx,
        types.map((t) => t.name),
      )
    ).map((t) => [t.name, t]),
  );
  const fresh = types.filter((t) => !existing.has(t.name));
  const changed = keep
    ? []
    : types.flatMap((t) => {
        const before = existing.get(t.name);
        return before && !before.builtIn ? [{ before, after: t }] : [];
      });
  await insertStrategyTypes(
    tx,
    fresh.map((t) => ({ ...t, builtIn: false })),
  );
  await updateStrategyTypes(
    tx,
    changed.map((c) => ({ ...c.after, builtIn: false })),
  );
  const event = (data: unknown, preData?: unknown): NewEvent => ({
    type: 'strategy-import',
    createdBy: by.name,
    createdByUserId: by.userId,
    data,
    preData,
  });
  return appendEvents(tx, [
    ...fresh.map((t) => event(eventData(t))),
    ...changed
      .filter((c) => !isDeepStrictEqual(eventData(c.after), eventData(c.before)))
      .map((c) => event(eventData(c.after), eventData(c.before))),
  ]);
}

/**
 * The state import's `drop` of strategy types (Unleash 5.x drops only custom ones): the custom
 * strategy types no flag strategy uses any more are deleted; one `drop-strategies` event.
 */
export async function dropCustomStrategyTypes(tx: Db, by: Principal): Promise<number> {
  const names = await deleteUnusedCustomStrategyTypes(tx);
  return appendEvents(tx, [
    {
      type: 'drop-strategies',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { name: 'all-strategies', count: names.length },
    },
  ]);
}
