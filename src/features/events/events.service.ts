import type { Static } from 'typebox';
import type { Db } from '../../platform/db/index.js';
import { invalidField } from '../../platform/http/errors.js';
import type { EventSearchQuery } from './events.schemas.js';
import { countAllEvents, type EventRecord, listEventCreators, listEvents } from './events.store.js';
import { searchEvents } from './search.store.js';

/** The users who have recorded events (tokens and the system are not users). */
export const readEventCreators = (db: Db) => listEventCreators(db);

/** Without a project, the event list shows this many of the most recent events. */
export const RECENT_EVENTS = 100;

/**
 * An event as the API shows it. `label` and `summary` (Unleash's words for people about an event)
 * are not written by this service: null, which Unleash's schema allows. Events have no groups, so
 * there is no `groupId`.
 */
const toResponse = (e: EventRecord) => ({
  ...e,
  createdAt: e.createdAt.toISOString(),
  label: null,
  summary: null,
});

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

const values = (filter: string | undefined) =>
  filter === undefined
    ? undefined
    : filter
        .slice(filter.indexOf(':') + 1)
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
const numbers = (filter: string | undefined) => {
  const list = values(filter);
  return list?.map(Number).filter((n) => Number.isInteger(n));
};
const dayOf = (filter: string | undefined, plusDays = 0) => {
  if (filter === undefined) return undefined;
  const text = filter.slice(3);
  const d = new Date(`${text}T00:00:00.000Z`);
  // A day that does not exist (2026-02-30) would roll over silently; it is refused instead.
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text)
    throw invalidField('/querystring', `"${filter}" is not a date.`);
  return new Date(d.getTime() + plusDays * 86_400_000);
};

/** Event search (`GET /api/admin/search/events`): every filter given must hold. */
export async function findEvents(db: Db, q: Static<typeof EventSearchQuery>) {
  const { events, total } = await searchEvents(db, {
    ...(q.query ? { query: q.query } : {}),
    ids: numbers(q.id),
    features: values(q.feature),
    projects: values(q.project),
    types: values(q.type),
    createdBy: numbers(q.createdBy),
    environments: values(q.environment),
    ...(q.groupId !== undefined ? { ids: [] } : {}),
    from: dayOf(q.from),
    toExclusive: dayOf(q.to, 1),
    offset: q.offset ?? 0,
    limit: q.limit ?? 50,
  });
  return { events: events.map(toResponse), total };
}
