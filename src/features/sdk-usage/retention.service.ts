import type { Deps } from '../../deps.js';
import { JOB_LEASES, transaction, tryJobLease } from '../../platform/db/index.js';
import { repeatEvery } from '../../platform/jobs.js';
import { deleteEventsBefore, noteUnloggedChange } from '../events/index.js';
import { deleteExpiredClientData, type Removed } from './retention.store.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * One round of the retention job: instances unseen for `CLIENT_INSTANCE_RETENTION_HOURS` and
 * hourly metrics (with their variant counts and unknown flag names) older than
 * `METRICS_RETENTION_HOURS` are deleted, by the service's clock, and, when `EVENT_RETENTION_DAYS`
 * is set (0, the default, keeps them all), events older than that except the newest (the events
 * slice deletes them). Of several instances on one database only one runs a round at a time (a
 * transaction lease, as the staleness job); the others skip it and answer null. Nothing records an
 * event: SDK reports are not configuration, and deleting old events changes none.
 */
export async function deleteExpiredClientReports(
  deps: Pick<Deps, 'database' | 'now' | 'config'>,
): Promise<Removed | null> {
  const now = deps.now().getTime();
  const eventDays = deps.config.EVENT_RETENTION_DAYS;
  const removed = await transaction(deps.database.db, async (tx) => {
    if (!(await tryJobLease(tx, JOB_LEASES.clientDataRetention))) return null;
    const reports = await deleteExpiredClientData(tx, {
      instancesBefore: new Date(now - deps.config.CLIENT_INSTANCE_RETENTION_HOURS * HOUR),
      metricsBefore: new Date(now - deps.config.METRICS_RETENTION_HOURS * HOUR),
    });
    const events = eventDays > 0 ? await deleteEventsBefore(tx, new Date(now - eventDays * DAY)) : 0;
    return { ...reports, events };
  });
  // The event count went down: move the change version on, after the commit (see deleteEventsBefore).
  if (removed && removed.events > 0) await noteUnloggedChange(deps.database.db);
  return removed;
}

/** Runs the job every `intervalMs` and once at start, until the returned function is called. */
export function startRetentionJob(
  deps: Pick<Deps, 'database' | 'now' | 'config'>,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
): () => Promise<void> {
  return repeatEvery(intervalMs, () => deleteExpiredClientReports(deps), log, 'client data retention');
}
