import type { Db } from '../../platform/db/index.js';
import { countAllEvents, type EventRecord, listEvents } from './events.store.js';

/** Without a project, the event list shows this many of the most recent events. */
export const RECENT_EVENTS = 100;

const toResponse = (e: EventRecord) => ({ ...e, createdAt: e.createdAt.toISOString() });

export async function readEvents(db: Db, project: string | undefined) {
  if (project !== undefined) {
    const events = await listEvents(db, { project });
    return { version: 1, events: events.map(toResponse), totalEvents: events.length };
  }
  const [events, totalEvents] = await Promise.all([
    listEvents(db, { limit: RECENT_EVENTS }),
    countAllEvents(db),
  ]);
  return { version: 1, events: events.map(toResponse), totalEvents };
}

export async function readFlagEvents(db: Db, featureName: string) {
  const events = await listEvents(db, { featureName });
  return { version: 1, toggleName: featureName, events: events.map(toResponse), totalEvents: events.length };
}
