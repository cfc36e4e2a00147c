import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, nameExists } from '../../platform/http/errors.js';
import type { NewEvent } from '../events/index.js';
import { appendEvents } from '../events/index.js';
import type { FlagRow } from '../flag-rows/index.js';
import { tagNewFlags } from '../tags/index.js';
import {
  type BatchFlag,
  deleteAllFlags,
  findFlags,
  insertFlags,
  type LiveAt,
  updateFlags,
} from './flags.batch.store.js';
import { eventData } from './flags.service.js';

/** What `feature-metadata-updated` compares (as a metadata edit through PUT records it). */
const metadata = (f: Pick<FlagRow, 'name' | 'project' | 'description' | 'type' | 'impressionData'>) => ({
  name: f.name,
  project: f.project,
  description: f.description,
  type: f.type,
  impressionData: f.impressionData,
});

export interface NewFlagExtras {
  /** The tags of new flags, put on them as createFlag does (`feature-created` carries them). */
  tags?: Map<string, { type: string; value: string }[]>;
  /** New flags the caller turns on in an environment next: they enter their stages with the insert. */
  live?: { flags: Set<string> } & LiveAt;
}

/**
 * Makes the listed flags of `project` what the list says, in the caller's transaction (which holds
 * the project's and the flags' rows, see lockProjectAndFlags): flags that do not exist are created
 * with their tags (`feature-created`, as createFlag), active flags of the project get the listed type,
 * description, stale state and impression data (`feature-metadata-updated`, `feature-stale-on/off`,
 * only when something changed). A name taken by a flag of another project or an archived flag is
 * refused (the caller checks that first). Returns the number of events recorded.
 */
export async function upsertFlags(
  tx: Db,
  project: string,
  flags: BatchFlag[],
  by: Principal,
  extras: NewFlagExtras = {},
): Promise<number> {
  const existing = await findFlags(
    tx,
    flags.map((f) => f.name),
  );
  const fresh: BatchFlag[] = [];
  const changed: { before: FlagRow; after: FlagRow }[] = [];
  for (const flag of flags) {
    const before = existing.get(flag.name);
    if (!before) {
      fresh.push(flag);
      continue;
    }
    if (before.project !== project || before.archivedAt !== null) {
      throw new AppError(
        'InvalidOperationError',
        `The flag "${flag.name}" exists ${before.archivedAt ? 'in the archive' : `in project "${before.project}"`}.`,
      );
    }
    const after: FlagRow = {
      name: before.name,
      project: before.project,
      type: flag.type,
      description: flag.description,
      stale: flag.stale,
      impressionData: flag.impressionData,
      createdAt: before.createdAt,
      archivedAt: before.archivedAt,
    };
    if (
      after.type !== before.type ||
      after.description !== before.description ||
      after.stale !== before.stale ||
      after.impressionData !== before.impressionData
    ) {
      changed.push({ before, after });
    }
  }
  const created = await insertFlags(tx, project, fresh, by, extras.live);
  if (created.length !== fresh.length) {
    const names = new Set(created.map((c) => c.name));
    throw nameExists(`A flag with the name "${fresh.find((f) => !names.has(f.name))?.name}" already exists.`);
  }
  if (extras.tags) {
    await tagNewFlags(tx, new Map(created.map((c) => [c.name, extras.tags?.get(c.name) ?? []])), by.userId);
  }
  await updateFlags(
    tx,
    changed.map((c) => c.after),
  );
  // Plain literals, no spreads: these are built by the thousand.
  const event = (type: string, featureName: string, data: unknown, preData?: unknown): NewEvent => ({
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    project,
    featureName,
    data,
    preData,
  });
  const events: NewEvent[] = created.map((flag) => event('feature-created', flag.name, eventData(flag)));
  for (const { before, after } of changed) {
    events.push(event('feature-metadata-updated', after.name, metadata(after), metadata(before)));
    if (after.stale !== before.stale) {
      const type = after.stale ? 'feature-stale-on' : 'feature-stale-off';
      events.push(event(type, after.name, { stale: after.stale }, { stale: before.stale }));
    }
  }
  return appendEvents(tx, events);
}

/**
 * The state import's `drop` of flags (Unleash 5.x): every flag goes, archived or not, and one
 * `drop-features` event records it. Returns the number of events recorded.
 */
export async function dropAllFlags(tx: Db, by: Principal): Promise<number> {
  const names = await deleteAllFlags(tx);
  return appendEvents(tx, [
    {
      type: 'drop-features',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: { name: 'all-features', count: names.length },
    },
  ]);
}
