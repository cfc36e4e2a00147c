import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import {
  attachProjectEnvironments,
  deleteProjectsWithoutFlags,
  enabledEnvironmentNames,
  type ImportedProject,
  insertProjects,
  lockProjects,
  updateProjects,
} from './projects.batch.store.js';

const eventData = (p: ImportedProject) => ({ id: p.id, name: p.name, description: p.description });

/**
 * Creates the listed projects that do not exist (`project-import` each, as Unleash 5.x's state
 * import). A new project gets the environments `environmentsOf` names for it (those that exist),
 * or every enabled environment when it names none, as a project created through the API. With
 * `keep` existing projects are left as they are; without it they take the listed name and
 * description (`project-import` with preData, only when something changed) and the environments
 * `environmentsOf` names that they lack (`project-environment-added` each; the flags get their
 * rows there when they are written). Returns the number of events recorded.
 */
export async function importProjects(
  tx: Db,
  projects: ImportedProject[],
  environmentsOf: Map<string, string[]>,
  keep: boolean,
  by: Principal,
  now: Date,
): Promise<number> {
  const existing = new Map(
    (
      await lockProjects(
        tx,
        projects.map((p) => p.id),
      )
    ).map((p) => [p.id, p]),
  );
  const fresh = projects.filter((p) => !existing.has(p.id));
  const changed = keep
    ? []
    : projects.flatMap((p) => {
        const before = existing.get(p.id);
        return before && !isDeepStrictEqual(eventData(before), eventData(p)) ? [{ before, after: p }] : [];
      });
  await insertProjects(tx, fresh, now);
  await updateProjects(
    tx,
    changed.map((c) => c.after),
    now,
  );
  const enabled = fresh.some((p) => (environmentsOf.get(p.id) ?? []).length === 0)
    ? await enabledEnvironmentNames(tx)
    : [];
  const isFresh = new Set(fresh.map((p) => p.id));
  const attached = await attachProjectEnvironments(tx, [
    ...fresh.flatMap((p) => {
      const named = environmentsOf.get(p.id) ?? [];
      return (named.length > 0 ? named : enabled).map((environment) => ({ project: p.id, environment }));
    }),
    ...(keep ? [] : projects.filter((p) => !isFresh.has(p.id))).flatMap((p) =>
      (environmentsOf.get(p.id) ?? []).map((environment) => ({ project: p.id, environment })),
    ),
  ]);
  const environments = new Map<string, string[]>();
  for (const a of attached)
    environments.set(a.project, [...(environments.get(a.project) ?? []), a.environment]);
  const event = (p: ImportedProject, data: unknown, preData?: unknown): NewEvent => ({
    type: 'project-import',
    createdBy: by.name,
    createdByUserId: by.userId,
    project: p.id,
    data,
    preData,
  });
  return appendEvents(tx, [
    ...fresh.map((p) => event(p, { ...eventData(p), environments: environments.get(p.id) ?? [] })),
    ...changed.map((c) => event(c.after, eventData(c.after), eventData(c.before))),
    ...attached
      .filter((a) => !isFresh.has(a.project))
      .map((a) => ({
        type: 'project-environment-added',
        createdBy: by.name,
        createdByUserId: by.userId,
        project: a.project,
        environment: a.environment,
        data: { environment: a.environment },
      })),
  ]);
}

/**
 * The state import's `drop` of projects: every project other than `default` goes, with what hangs
 * off it, except those that still hold flags (the document had no flags to drop them with). One
 * `drop-projects` event.
 */
export async function dropProjects(tx: Db, by: Principal): Promise<number> {
  const ids = await deleteProjectsWithoutFlags(tx);
  return appendEvents(tx, [
    {
      type: 'drop-projects',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { name: 'all-projects', count: ids.length },
    },
  ]);
}
