import type { Deps } from '../../deps.js';
import { notFound } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import type { Dora } from './insights.schemas.js';
import { timeToProdDates } from './insights.store.js';
import { cachedBase, stats } from './overview.service.js';
import { projectExtras } from './overview.store.js';
import { findProject } from './projects.store.js';

const DAY = 86_400_000;

/**
 * Lead time for changes, as Unleash computes it: per flag, whole days (truncated) from creation to
 * the first `feature-environment-enabled` in a production-type environment; the project average is
 * the mean of those days over release flags, to one decimal (0 without any). Computed from the
 * event log as it is now: a flag enabled before its events were recorded does not count.
 */
export async function getDora(deps: Deps, projectId: string): Promise<Dora> {
  const db = deps.database.db;
  if (!(await findProject(db, projectId))) throw notFound(`Could not find project with id "${projectId}".`);
  const rows = await timeToProdDates(db, projectId);
  const days = (r: (typeof rows)[number]) =>
    Math.floor((new Date(r.first_on).getTime() - new Date(r.created_at).getTime()) / DAY);
  const release = rows.filter((r) => r.type === 'release').map(days);
  const projectAverage = release.length
    ? Number((release.reduce((a, b) => a + b, 0) / release.length).toFixed(1))
    : 0;
  return { projectAverage, features: rows.map((r) => ({ name: r.name, timeToProduction: days(r) })) };
}

/**
 * Project insights from the current data (Unleash keeps daily snapshots; this service has none):
 * the overview's 30-day statistics, health and technical debt with their counts, the lead time,
 * flags per type and members. `members.change` is an approximation: the project's role grants made
 * in the last 30 days that still hold (removed grants leave no trace to subtract).
 */
export async function getInsights(deps: Deps, reads: Reads, projectId: string) {
  const base = await cachedBase(deps, reads, projectId, false);
  const [windowed, extras, leadTime] = await Promise.all([
    stats(deps, reads, projectId),
    projectExtras(deps.database.db, projectId),
    getDora(deps, projectId),
  ]);
  if (!extras) throw notFound(`Could not find project with id "${projectId}".`);
  const counts = {
    activeCount: base.counts.active - base.counts.stale,
    potentiallyStaleCount: base.counts.potentiallyStale,
    staleCount: base.counts.stale,
  };
  return {
    stats: windowed,
    health: { rating: base.head.health, ...counts },
    technicalDebt: { rating: 100 - base.head.health, ...counts },
    leadTime,
    featureTypeCounts: extras.type_counts,
    members: { currentMembers: base.head.members, change: windowed.projectMembersAddedCurrentWindow },
  };
}
