import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import {
  type DependencyRow,
  deleteDependencyRows,
  parentsOfFlags,
  upsertDependencies,
} from './dependencies.batch.store.js';

export interface WantedParent {
  feature: string;
  enabled: boolean;
  /** Sorted and without duplicates; null for "any variant", as addDependency stores it. */
  variants: string[] | null;
}

/**
 * Makes the parents of each listed flag of `project` exactly the given ones, in the caller's
 * transaction (which holds the rows of the flags and of the parents). The caller has checked the
 * rules of addDependency (same project, active parents, one level). New or changed dependencies
 * record `feature-dependency-added` and removed ones `feature-dependency-removed`, as the
 * dependency routes record them. Returns the number of events recorded.
 */
export async function setParentsOfFlags(
  tx: Db,
  project: string,
  wanted: Map<string, WantedParent[]>,
  by: Principal,
): Promise<number> {
  const current = new Map<string, DependencyRow>();
  for (const row of await parentsOfFlags(tx, [...wanted.keys()]))
    current.set(`${row.child}\u0000${row.parent}`, row);
  const upserts: DependencyRow[] = [];
  const keep = new Set<string>();
  for (const [child, parents] of wanted) {
    for (const p of parents) {
      const key = `${child}\u0000${p.feature}`;
      keep.add(key);
      const before = current.get(key);
      const row = { child, parent: p.feature, enabled: p.enabled, variants: p.variants };
      if (!before || !isDeepStrictEqual({ ...before, variants: before.variants ?? null }, row))
        upserts.push(row);
    }
  }
  const removed = [...current.entries()].filter(([key]) => !keep.has(key)).map(([, row]) => row);
  await deleteDependencyRows(tx, removed);
  await upsertDependencies(tx, upserts);
  const who = { createdBy: by.name, createdByUserId: by.userId, project };
  const events: NewEvent[] = [
    ...removed.map((r) => ({
      ...who,
      type: 'feature-dependency-removed',
      featureName: r.child,
      data: { feature: r.parent },
    })),
    ...upserts.map((r) => ({
      ...who,
      type: 'feature-dependency-added',
      featureName: r.child,
      data: { feature: r.parent, enabled: r.enabled, ...(r.variants && { variants: r.variants }) },
    })),
  ];
  return appendEvents(tx, events);
}
