import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { appendEvents, type NewEvent } from '../events/index.js';
import {
  deleteUnusedSegments,
  type ImportedSegment,
  insertSegments,
  lockSegmentsByName,
  type StoredSegment,
  segmentIdsTaken,
  updateSegments,
} from './segments.batch.store.js';

const eventData = (s: StoredSegment) => ({
  id: s.id,
  name: s.name,
  description: s.description,
  project: s.project,
  constraints: s.constraints,
});

/**
 * Imports segments, matched by name: a segment that does not exist is created (with the listed id
 * when no segment has it, else a new one); with `keep` existing ones are left as they are, without
 * it they take the listed description, project and constraints. One `segment-import` event per
 * segment created or changed (preData for a change). Constraints must be checked and stored-form
 * already, projects must exist. Returns the events recorded and every listed segment's id by name.
 */
export async function importSegments(
  tx: Db,
  segments: ImportedSegment[],
  keep: boolean,
  by: Principal,
  type: 'segment-import' | 'segment-created' = 'segment-import',
): Promise<{ events: number; ids: Map<string, number> }> {
  const existing = new Map(
    (
      await lockSegmentsByName(
        tx,
        segments.map((s) => s.name),
      )
    ).map((s) => [s.name, s]),
  );
  const fresh = segments.filter((s) => !existing.has(s.name));
  const taken = await segmentIdsTaken(
    tx,
    fresh.flatMap((s) => (s.id === undefined ? [] : [s.id])),
  );
  const claimed = new Set<number>();
  const toInsert = fresh.map((s) => {
    const free = s.id !== undefined && !taken.has(s.id) && !claimed.has(s.id);
    if (free && s.id !== undefined) claimed.add(s.id);
    return { ...s, id: free ? s.id : undefined };
  });
  const ids = await insertSegments(tx, toInsert, by.name);
  const changed = keep
    ? []
    : segments.flatMap((s) => {
        const before = existing.get(s.name);
        const after = before && { ...s, id: before.id };
        return before && after && !isDeepStrictEqual(eventData(before), eventData(after))
          ? [{ before, after }]
          : [];
      });
  await updateSegments(
    tx,
    changed.map((c) => c.after),
  );
  for (const s of existing.values()) ids.set(s.name, s.id);
  const event = (data: ReturnType<typeof eventData>, preData?: unknown): NewEvent => ({
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    ...(data.project && { project: data.project }),
    data,
    preData,
  });
  const events = await appendEvents(tx, [
    ...toInsert.map((s) => event(eventData({ ...s, id: ids.get(s.name) ?? 0 }))),
    ...changed.map((c) => event(eventData(c.after), eventData(c.before))),
  ]);
  return { events, ids };
}

/**
 * The state import's `drop` of segments: every segment no strategy uses any more is deleted.
 * Unleash records no event for it and has no `drop-segments` type: one `segment-deleted` per
 * segment (preData the segment), as deleting it through the API records.
 */
export async function dropSegments(tx: Db, by: Principal): Promise<number> {
  const deleted = await deleteUnusedSegments(tx);
  return appendEvents(
    tx,
    deleted.map((s) => ({
      type: 'segment-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      preData: eventData(s),
    })),
  );
}

/**
 * Creates the segments the flag import defines and this instance lacks (the caller checked under
 * its locks; a name taken meanwhile is a unique violation), with new ids: importSegments with one
 * `segment-created` per segment, as creating each through the API records. Returns the ids by name.
 */
export async function createSegments(
  tx: Db,
  segments: ImportedSegment[],
  by: Principal,
): Promise<Map<string, number>> {
  const fresh = segments.map((s) => ({ ...s, id: undefined }));
  return (await importSegments(tx, fresh, true, by, 'segment-created')).ids;
}
