import type { Deps } from '../../deps.js';
import { fullMatch } from '../../evaluation/index.js';
import { type Database, type Db, singleStatement, transaction } from '../../platform/db/index.js';
import { isClientCaused } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import { checkIfMatch, etagOf } from '../../platform/http/etag.js';
import { batchesPer } from '../../platform/keyed-batches.js';
import type { Reads } from '../../platform/read-cache.js';
import { gateDirectWrite } from '../change-requests/index.js';
import { appendEvent, appendEvents } from '../events/index.js';
import { type FlagRow, findFlagArchivedState, lockFlag } from '../flag-rows/index.js';
import { maintenanceError, refuseInMaintenance } from '../maintenance/index.js';
import { plansOfFlag } from '../release-plans/index.js';
import { tagNewFlag } from '../tags/index.js';
import { disableAllEnvironments, hasChildren } from './archive.store.js';
import { loadFlagViewWithCollaborators } from './collaborators.store.js';
import { insertNewFlags } from './create-together.store.js';
import { favoriteFlags } from './favorites.service.js';
import type { CreateFlagInput, Flag, UpdateFlagInput } from './flags.schemas.js';
import {
  countActiveFlags,
  enterLifecycleStage,
  type FlagChange,
  findActiveProject,
  insertFlag,
  leaveLifecycleStage,
  loadFlagView,
  type NewFlag,
  type NewFlagEnvironment,
  type ProjectForFlags,
  type RecordedChange,
  updateFlag,
  updateFlagRecorded,
  updateFlagRecordedWithView,
} from './flags.store.js';
import { newFlag, toCollaborators, toFlag, withPlans } from './flags.view.js';

/** What `feature-metadata-updated` compares: the properties a metadata edit can change. */
const metadata = (f: FlagRow) => ({
  name: f.name,
  project: f.project,
  description: f.description,
  type: f.type,
  impressionData: f.impressionData,
});

/** The flag as events record it in data/preData (the metadata, without per-environment state). */
export function eventData(flag: FlagRow) {
  return {
    name: flag.name,
    description: flag.description,
    type: flag.type,
    project: flag.project,
    stale: flag.stale,
    createdAt: flag.createdAt.toISOString(),
    impressionData: flag.impressionData,
    archived: flag.archivedAt !== null,
    archivedAt: flag.archivedAt?.toISOString() ?? null,
  };
}

export function checkNaming(project: ProjectForFlags, name: string) {
  if (!project.namingPattern || fullMatch(project.namingPattern, name)) return;
  const example = project.namingExample ? ` Example: "${project.namingExample}".` : '';
  const description = project.namingDescription ? ` ${project.namingDescription}` : '';
  throw invalidField(
    '/body/name',
    `The flag name "${name}" does not match the project's naming pattern "^${project.namingPattern}$".${example}${description}`,
  );
}

/** Takes the project lock only when there is a limit to hold (see findActiveProject). */
export async function checkLimit(tx: Db, project: ProjectForFlags) {
  if (project.featureLimit === null) return;
  const locked = await findActiveProject(tx, project.id, true);
  const limit = locked?.featureLimit ?? null;
  if (limit !== null && (await countActiveFlags(tx, project.id)) >= limit) {
    throw new AppError(
      'InvalidOperationError',
      `You have reached the maximum number of feature flags for this project (${limit}).`,
    );
  }
}

/**
 * Inserts a flag; a name taken by any flag, archived or not, is a 409 (the primary key decides,
 * the lookup only words the message); in maintenance mode, the 503 (see insertFlag). With
 * `recordedBy`, the same statement records `feature-created` (a flag without tags: see insertFlag).
 */
export async function insertNewFlag(tx: Db, flag: NewFlag, recordedBy?: Principal) {
  const inserted = await insertNewFlagIfOpen(tx, flag, recordedBy, false);
  if (!inserted) throw new Error('a flag insert without the open-project condition must insert or throw');
  return inserted;
}

/**
 * insertNewFlag; with `openProjectOnly`, only into an open project (active, no naming pattern, no
 * flag limit: see insertFlag), else undefined and nothing written.
 */
async function insertNewFlagIfOpen(
  tx: Db,
  flag: NewFlag,
  recordedBy: Principal | undefined,
  openProjectOnly: boolean,
) {
  const {
    flag: inserted,
    maintenance,
    projectOpen,
  } = await insertFlag(tx, flag, recordedBy, openProjectOnly);
  if (maintenance) throw maintenanceError();
  if (inserted) return inserted;
  if (!projectOpen) return undefined;
  const existing = await findFlagArchivedState(tx, flag.name);
  throw nameExists(
    existing?.archived_at
      ? 'An archived flag with that name already exists'
      : 'A flag with that name already exists',
  );
}

export async function createFlag(deps: Deps, projectId: string, input: CreateFlagInput, by: Principal) {
  if (input.name === '.' || input.name === '..')
    throw invalidField('/body/name', '"." and ".." are not flag names.');
  const values: NewFlag = {
    name: input.name,
    project: projectId,
    type: input.type ?? 'release',
    description: input.description || null,
    impressionData: input.impressionData ?? false,
    createdByUserId: by.userId,
    createdByName: by.name,
  };
  const tags = input.tags ?? [];
  const { db } = deps.database;
  // Most creates (no tags, a project with neither naming pattern nor flag limit) are one
  // statement: the project's check, the flag and its event. No transaction around it, no read before.
  // Those that arrive while another create in the project runs share one (see batchedCreates).
  if (tags.length === 0) {
    const together = await batchedCreates(deps.database).submit(projectId, { values, by });
    if (typeof together === 'object') return newFlag(together, [], { id: by.userId, name: by.name });
    const flag =
      together === 'alone'
        ? await singleStatement(db, (db) => insertNewFlagIfOpen(db, values, by, true))
        : undefined;
    if (flag) return newFlag(flag, [], { id: by.userId, name: by.name });
  }
  // Otherwise, without tags in a project without a flag limit (so one with a naming pattern, or
  // none that is active: the 404), the project is read and checked here, then one statement.
  const project = tags.length === 0 ? await findActiveProject(db, projectId, false) : undefined;
  if (project && project.featureLimit === null) {
    await admitNewFlag(db, project, projectId, input.name);
    const flag = await singleStatement(db, (db) => insertNewFlag(db, values, by));
    return newFlag(flag, [], { id: by.userId, name: by.name });
  }
  return transaction(db, async (tx) => {
    const project = await findActiveProject(tx, projectId, false);
    await admitNewFlag(tx, project, projectId, input.name);
    const flag = await insertNewFlag(tx, values);
    await tagNewFlag(tx, flag.name, tags, by.userId);
    await recordCreated(tx, flag, by);
    return newFlag(flag, tags, { id: by.userId, name: by.name });
  });
}

interface PendingCreate {
  values: NewFlag;
  by: Principal;
}

/**
 * A create's outcome in its batch: its flag; `alone` (not written: run it on its own, which
 * answers why); `closed` (the project is not open, see insertFlag: the checked path).
 */
type CreatedOutcome = (FlagRow & { environments: NewFlagEnvironment[] }) | 'alone' | 'closed';

/**
 * Creates of flags in one project, per database: one statement at a time per project, and the
 * creates that arrive while it runs are inserted together by the next (insertNewFlags): one
 * statement, trigger call and commit for the lot, each flag still with its own event. A create
 * alone is today's statement. In a batch, a name taken (or sent twice) and every create of a batch
 * the database refused for what one of them sent come back `alone`, to be answered as a single
 * create is; anything else that fails the batch (the database away) fails each of its creates.
 */
const batchedCreates = batchesPer(createTogether);

async function createTogether(
  database: Database,
  items: PendingCreate[],
): Promise<PromiseSettledResult<CreatedOutcome>[]> {
  const each = (outcome: (item: PendingCreate) => PromiseSettledResult<CreatedOutcome>) => items.map(outcome);
  const failed = (reason: unknown) => each(() => ({ status: 'rejected', reason }));
  const [first] = items as [PendingCreate];
  if (items.length === 1) {
    try {
      const flag = await singleStatement(database.db, (db) =>
        insertNewFlagIfOpen(db, first.values, first.by, true),
      );
      return [{ status: 'fulfilled', value: flag ?? 'closed' }];
    } catch (error) {
      return failed(error);
    }
  }
  const names = new Set<string>();
  const firsts = items.filter((item) => !names.has(item.values.name) && names.add(item.values.name));
  let done: Awaited<ReturnType<typeof insertNewFlags>>;
  try {
    done = await singleStatement(database.db, (db) =>
      insertNewFlags(
        db,
        first.values.project,
        firsts.map((item) => item.values),
      ),
    );
  } catch (error) {
    return isClientCaused(error) ? each(() => ({ status: 'fulfilled', value: 'alone' })) : failed(error);
  }
  if (done.maintenance) return failed(maintenanceError());
  const outcome = (item: PendingCreate): CreatedOutcome =>
    !done.projectOpen ? 'closed' : (firsts.includes(item) && done.inserted.get(item.values.name)) || 'alone';
  return each((item) => ({ status: 'fulfilled', value: outcome(item) }));
}

/** The project must be active, and the name fit its naming pattern and its flag limit (create, clone). */
export async function admitNewFlag(
  tx: Db,
  project: Awaited<ReturnType<typeof findActiveProject>>,
  projectId: string,
  name: string,
) {
  if (!project) throw notFound(`Active project with id ${projectId} does not exist`);
  checkNaming(project, name);
  await checkLimit(tx, project);
}

/** Records `feature-created` for a flag just inserted (create and clone). */
export async function recordCreated(tx: Db, flag: FlagRow, by: Principal) {
  await appendEvent(tx, {
    type: 'feature-created',
    createdBy: by.name,
    createdByUserId: by.userId,
    featureName: flag.name,
    project: flag.project,
    data: eventData(flag),
  });
}

export async function readFlag(db: Db, name: string): Promise<Flag> {
  const row = await loadFlagView(db, name);
  if (!row) throw notFound(`Could not find feature flag with name ${name}`);
  return toFlag(row, false);
}

/**
 * The flag's ETag: a hash of the flag as GET shows it, without the caller's own `favorite` mark (a
 * personal bookmark, not part of the flag, and not guarded by the flag's lock). Everything else the
 * GET shows is in it: metadata, environments, strategies, variants, tags, dependencies, links,
 * lifecycle, and also `lastSeenAt` (so metrics arriving between a read and a write make a
 * conditional write fail: read again). See platform/http/etag.ts for why a hash.
 */
export const flagEtag = (flag: Flag) => {
  // Collaborators come from the events and release plans from their own slice, not the flag's
  // state; the If-Match check reads the flag without them (a plan's start shows in the strategies).
  const { collaborators: _, ...state } = flag;
  const environments = state.environments.map(({ releasePlans: _plans, ...env }) => env);
  return etagOf({ ...state, environments, favorite: false });
};

/** Served from the read cache: the view of a flag is the same for every caller. */
export async function getFlag(
  deps: Deps,
  reads: Reads,
  projectId: string,
  name: string,
  by: Principal | null,
): Promise<Flag> {
  const [flag, favorites] = await Promise.all([
    reads.read(`flag\u0000${name}`, async () => {
      const [row, plans] = await Promise.all([
        loadFlagViewWithCollaborators(deps.database.db, name),
        plansOfFlag(deps.database.db, name),
      ]);
      return row
        ? { ...withPlans(toFlag(row, false), plans), collaborators: toCollaborators(row.collaborators) }
        : null;
    }),
    favoriteFlags(deps, reads, by),
  ]);
  if (!flag || flag.project !== projectId) throw notInProject(name, projectId, flag?.project);
  return favorites.has(name) ? { ...flag, favorite: true } : flag;
}

export function notInProject(name: string, projectId: string, actualProject: string | undefined) {
  const elsewhere = actualProject ? ` It is in project "${actualProject}".` : '';
  return notFound(`There's no feature named "${name}" in project "${projectId}".${elsewhere}`);
}

/**
 * Partial update: only the properties sent change. `archived` moves the flag into or out of the
 * archive. Each kind of change records its own event, all in the transaction of the change.
 * Refuses in maintenance mode itself (its routes skip the guard's read: `maintenance: 'handler'`).
 */
export async function updateFlagMetadata(
  deps: Deps,
  projectId: string,
  name: string,
  change: UpdateFlagInput | ((before: FlagRow) => UpdateFlagInput),
  by: Principal,
  ifMatch?: string,
): Promise<Flag> {
  const renames = (input: UpdateFlagInput) => input.name !== undefined && input.name !== name;
  const renameError = () => invalidField('/body/name', 'Cannot change the name of a feature flag.');
  if (typeof change !== 'function' && renames(change)) throw renameError();
  // Nearly every PUT: no If-Match, no archive change. The change and its events are one statement,
  // shared with the other writers of the flag that arrive while one runs (see batchedUpdates).
  if (typeof change !== 'function' && ifMatch === undefined && change.archived === undefined) {
    const applied = await batchedUpdates(deps.database).submit(JSON.stringify([projectId, name]), {
      projectId,
      name,
      change: flagChange(change),
      by,
    });
    return applied.flag;
  }
  await transaction(deps.database.db, async (tx) => {
    await refuseInMaintenance(tx);
    const before = await lockFlag(tx, name);
    if (!before || before.project !== projectId) throw notInProject(name, projectId, before?.project);
    // After the lock: a writer holding the same ETag that committed first has changed the view.
    await checkIfMatch(ifMatch, async () => {
      const row = await loadFlagView(tx, name);
      return row ? { ...toFlag(row, false), favorite: false } : null;
    });
    // A function (the JSON Patch) derives the change from the locked row, so nothing changes between.
    const input = typeof change === 'function' ? change(before) : change;
    if (renames(input)) throw renameError();
    const now = deps.now();
    const after: FlagRow = { ...before, ...flagChange(input) };
    if (input.archived === true && before.archivedAt === null) {
      // Archiving touches every environment of the flag: refused where change requests are required.
      await gateDirectWrite(tx, by, projectId);
      after.archivedAt = now;
    }
    if (input.archived === false && before.archivedAt !== null) after.archivedAt = null;
    await updateFlag(tx, name, after);
    await recordMetadataChange(tx, before, after, by, now);
  });
  // Read after the commit, so the flag's row lock is not held while the (larger) view is built:
  // concurrent writers to one flag wait for less. The answer shows this change (and any later one).
  return readFlag(deps.database.db, name);
}

interface PendingUpdate extends RecordedChange {
  projectId: string;
  name: string;
}

/** What a batch of PUTs gives each of them: the flag as the batch left it (or later), read once. */
interface Applied {
  flag: Promise<Flag>;
}

/**
 * The plain PUTs of one flag, per database: one statement at a time per flag, and the PUTs that
 * arrive while it runs share the next one (KeyedBatches). Eight writers of one flag otherwise
 * queue on its row lock, each paying for the row's update (its 16 index entries), its commit
 * and, on PostgreSQL, the answer's read; together they pay once. Each writer still gets its own
 * events in its order, and its answer shows its change and the ones applied with it (as a read
 * after the commit would). A batch the database refuses for what one change sent (a NUL in a
 * description) is applied change by change, so each writer gets its own answer; any other failure
 * (the database away) fails every change of the batch, as it would each.
 */
const batchedUpdates = batchesPer(applyUpdates);

async function applyUpdates(
  database: Database,
  items: PendingUpdate[],
): Promise<PromiseSettledResult<Applied>[]> {
  const { db } = database;
  const { name, projectId } = items[0] as PendingUpdate;
  const all = (result: PromiseSettledResult<Applied>) => items.map(() => result);
  let flag: Promise<Flag> | undefined;
  let maintenance: boolean;
  try {
    // Read after the run, which ends here: the flag's next batch need not wait for this read.
    const read = (w: { updated: boolean }) => (w.updated ? readFlag(db, name) : undefined);
    // PGlite runs one statement at a time: the answer's view comes with the write (one call into
    // the database instead of two, ~10 % of a PUT there). See updateFlagRecordedWithView.
    const written =
      database.engine === 'pglite'
        ? await singleStatement(db, (db) => updateFlagRecordedWithView(db, name, projectId, items))
        : await singleStatement(db, (db) => updateFlagRecorded(db, name, projectId, items));
    ({ maintenance } = written);
    flag = 'view' in written ? written.view && Promise.resolve(toFlag(written.view, false)) : read(written);
    // The row was held or moved: nothing was written (updatedAfterLock).
    if (written.busy) ({ maintenance, flag } = await updatedAfterLock(db, name, projectId, items, read));
  } catch (error) {
    if (items.length === 1 || !isClientCaused(error)) return all({ status: 'rejected', reason: error });
    const results: PromiseSettledResult<Applied>[] = [];
    for (const item of items) results.push(...(await applyUpdates(database, [item])));
    return results;
  }
  if (flag) {
    // Every writer awaits it; this only keeps a failed read from counting as unhandled meanwhile.
    flag.catch(() => undefined);
    return all({ status: 'fulfilled', value: { flag } });
  }
  // Nothing changed: unknown flag, another project, maintenance. The same answer for every change.
  const reason = maintenance
    ? maintenanceError()
    : await findFlagArchivedState(db, name).then(
        (found) => notInProject(name, projectId, found?.project),
        (error: unknown) => error,
      );
  return all({ status: 'rejected', reason });
}

/**
 * The batch's statement once this transaction holds the flag's row, for a statement that found the
 * row held by another writer or changed after it began (`busy`): it wrote nothing, since it would
 * have recorded events with what it read before that writer committed (e.g. without a tag just
 * added). After the lock, the statement reads everything as that writer left it.
 */
async function updatedAfterLock(
  db: Db,
  name: string,
  projectId: string,
  items: PendingUpdate[],
  read: (written: { updated: boolean }) => Promise<Flag> | undefined,
): Promise<{ maintenance: boolean; flag: Promise<Flag> | undefined }> {
  const written = await transaction(db, async (tx) => {
    await lockFlag(tx, name);
    return updateFlagRecorded(tx, name, projectId, items);
  });
  return { maintenance: written.maintenance, flag: read(written) };
}

/** The row change an update input asks for (an empty description clears it). */
function flagChange(input: UpdateFlagInput): FlagChange {
  return {
    ...(input.type !== undefined && { type: input.type }),
    ...(input.description !== undefined && { description: input.description || null }),
    ...(input.stale !== undefined && { stale: input.stale }),
    ...(input.impressionData !== undefined && { impressionData: input.impressionData }),
  };
}

/**
 * The events of a flag's row change, in the change's transaction: `feature-metadata-updated` when
 * its metadata differs, `feature-stale-on/off` when staleness flipped (one statement for both),
 * then the archive side (recordArchiveChange).
 */
async function recordMetadataChange(tx: Db, before: FlagRow, after: FlagRow, by: Principal, now: Date) {
  const base = {
    createdBy: by.name,
    createdByUserId: by.userId,
    featureName: before.name,
    project: before.project,
  };
  await appendEvents(tx, [
    { ...base, type: 'feature-metadata-updated', data: metadata(after), preData: metadata(before) },
    ...(after.stale === before.stale
      ? []
      : [
          {
            ...base,
            type: after.stale ? 'feature-stale-on' : 'feature-stale-off',
            data: { stale: after.stale },
            preData: { stale: before.stale },
          },
        ]),
  ]);
  await recordArchiveChange(tx, before, after, by, now);
}

/**
 * The archive side of a flag change whose row is already written: entering the archive adds the
 * `archived` lifecycle stage and records `feature-archived`; leaving it removes that stage (the
 * flag returns to the stage it had before), turns the flag off in every environment (as Unleash
 * does) and records `feature-revived`. Anything else: nothing.
 */
export async function recordArchiveChange(tx: Db, before: FlagRow, after: FlagRow, by: Principal, now: Date) {
  const archiving = before.archivedAt === null && after.archivedAt !== null;
  const reviving = before.archivedAt !== null && after.archivedAt === null;
  if (!archiving && !reviving) return;
  // Whatever route archives it, a flag other flags depend on stays (as Unleash): remove the
  // dependencies first. Thrown inside the transaction, so the written row rolls back.
  if (archiving && (await hasChildren(tx, after.name))) {
    throw new AppError(
      'InvalidOperationError',
      'You can not archive/delete this feature since other features depend on it.',
    );
  }
  if (archiving) await enterLifecycleStage(tx, after.name, 'archived', now);
  else {
    await leaveLifecycleStage(tx, after.name, 'archived');
    await disableAllEnvironments(tx, after.name);
  }
  await appendEvent(tx, {
    type: archiving ? 'feature-archived' : 'feature-revived',
    createdBy: by.name,
    createdByUserId: by.userId,
    featureName: after.name,
    project: after.project,
    data: eventData(after),
    preData: eventData(before),
  });
}
