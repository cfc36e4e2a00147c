import type { Db } from '../../platform/db/index.js';
import { nameExists } from '../../platform/http/errors.js';
import { type ChangeHandlers, checkSnapshot } from '../changes/index.js';
import { appendEvent } from '../events/index.js';
import type { AdminSegment } from '../shapes/index.js';
import { eventData, notFoundSegment, toSegment, values } from './segments.service.js';
import { deleteSegment, findSegment, type SegmentRow, updateSegment } from './segments.store.js';

/**
 * A snapshot is compared on what the segment itself is: how many flags use it changes without it.
 */
function checkSegmentSnapshot(snapshot: AdminSegment | undefined, current: SegmentRow) {
  const own = (s: Pick<SegmentRow, 'id' | 'name' | 'description' | 'project' | 'constraints'>) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    project: s.project,
    constraints: s.constraints,
  });
  checkSnapshot(snapshot && own(snapshot), own(current), `The segment "${current.name}"`);
}

/**
 * Where a segment changes, and the events that records: the segment changes' handlers (the applier
 * of src/features/changes/ runs them in its transaction; each locks the segment's row).
 */
async function currentSegment(db: Db, id: number): Promise<AdminSegment> {
  const segment = await findSegment(db, id);
  if (!segment) throw notFoundSegment(id);
  return toSegment(segment);
}

export const segmentChanges: Pick<ChangeHandlers, 'updateSegment' | 'deleteSegment'> = {
  updateSegment: {
    current: (db, change) => currentSegment(db, change.payload.id),
    // Replaces name, description, project and constraints (a project left out becomes null, as Unleash).
    async apply(tx, change, { by }) {
      const { id, snapshot, ...input } = change.payload;
      const before = await findSegment(tx, id, true);
      if (!before) throw notFoundSegment(id);
      checkSegmentSnapshot(snapshot, before);
      await updateSegment(tx, id, await values(tx, input));
      const after = (await findSegment(tx, id)) as SegmentRow;
      await appendEvent(tx, {
        type: 'segment-updated',
        createdBy: by.name,
        createdByUserId: by.userId,
        ...(after.project && { project: after.project }),
        data: eventData(after),
        preData: eventData(before),
      });
      return undefined;
    },
  },

  deleteSegment: {
    current: (db, change) => currentSegment(db, change.payload.id),
    // A segment still used by a strategy is a 409: remove it from them first.
    async apply(tx, change, { by }) {
      const { id, snapshot } = change.payload;
      const before = await findSegment(tx, id, true);
      if (!before) throw notFoundSegment(id);
      checkSegmentSnapshot(snapshot, before);
      if (before.usedInFeatures > 0) {
        throw nameExists(
          `Segment "${before.name}" is used by strategies of ${before.usedInFeatures} flag(s); remove it from them before deleting it.`,
        );
      }
      await deleteSegment(tx, id);
      await appendEvent(tx, {
        type: 'segment-deleted',
        createdBy: by.name,
        createdByUserId: by.userId,
        ...(before.project && { project: before.project }),
        preData: eventData(before),
      });
      return undefined;
    },
  },
};
