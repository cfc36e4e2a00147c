import type { Deps } from '../../deps.js';
import { JOB_LEASES, transaction, tryJobLease } from '../../platform/db/index.js';
import { notFound } from '../../platform/http/errors.js';
import { repeatEvery } from '../../platform/jobs.js';
import type { HealthHistory } from './health-history.schemas.js';
import {
  type HealthCounts,
  healthCountsOf,
  listHealthDays,
  lockedHealthCounts,
  upsertHealthDays,
} from './health-history.store.js';
import { health } from './overview.service.js';

const DAY = 86_400_000;
/** The UTC day of a moment as `YYYY-MM-DD`. */
const utcDay = (t: number) => new Date(t).toISOString().slice(0, 10);

const point = (date: string, c: Omit<HealthCounts, 'project_id'>) => ({
  date,
  health: health(c.flags, c.stale, c.potentially_stale),
  flags: c.flags,
  stale: c.stale,
  potentiallyStale: c.potentially_stale,
});

/**
 * One round of the health-history job: every non-archived project's health now becomes its figure
 * for today (UTC, by the injected clock), replacing what an earlier round wrote today. Of several
 * instances on one database only one runs a round at a time (a transaction lease); the others skip
 * it. Returns how many projects were recorded (0 when skipped).
 */
export async function recordProjectHealth(deps: Pick<Deps, 'database' | 'now'>): Promise<number> {
  const day = utcDay(deps.now().getTime());
  return transaction(deps.database.db, async (tx) => {
    if (!(await tryJobLease(tx, JOB_LEASES.projectHealthHistory))) return 0;
    const rows = await lockedHealthCounts(tx);
    await upsertHealthDays(
      tx,
      day,
      rows.map((r) => ({ ...r, health: health(r.flags, r.stale, r.potentially_stale) })),
    );
    return rows.length;
  });
}

/** Runs the job every `intervalMs` and once at start, until the returned function is called. */
export function startHealthHistoryJob(
  deps: Pick<Deps, 'database' | 'now'>,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
): () => Promise<void> {
  return repeatEvery(intervalMs, () => recordProjectHealth(deps), log, 'project health recording');
}

/**
 * The project's health over the last `days` UTC days, oldest first: the recorded days (a day
 * without a round is left out) and today's figures computed now, so today is always there.
 */
export async function getHealthHistory(deps: Deps, projectId: string, days: number): Promise<HealthHistory> {
  const db = deps.database.db;
  const now = deps.now().getTime();
  const today = utcDay(now);
  const from = utcDay(now - (days - 1) * DAY);
  const [current, recorded] = await Promise.all([
    healthCountsOf(db, projectId),
    listHealthDays(db, projectId, from, today),
  ]);
  if (!current) throw notFound(`Could not find project with id "${projectId}".`);
  return {
    projectId,
    days: [...recorded.map((r) => point(r.date, r)), point(today, current)],
  };
}
