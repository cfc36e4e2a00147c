import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { listFlagOverviews, listProjectRows, overviewCounts } from './overview.store.js';
import type { DefaultStrategy, ProjectOverview } from './projects.schemas.js';
import { findProject, listProjectEnvironments } from './projects.store.js';

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

/** Only users have favorites; tokens see none (see setFavorite). */
const userIdOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);

/**
 * Project health as docs/api.md §5 defines it, computed live: over non-archived flags,
 * round(100 - stale/total*100 - potentiallyStale/total*100), 100 without flags.
 */
export function health(total: number, stale: number, potentiallyStale: number): number {
  if (total === 0) return 100;
  return Math.max(0, Math.round(100 - (stale / total) * 100 - (potentiallyStale / total) * 100));
}

export async function listProjects(deps: Deps, principal: Principal) {
  const rows = await listProjectRows(deps.database.db, userIdOf(principal), deps.now());
  return {
    version: 1,
    projects: rows.map((r) => {
      const h = health(r.active_total, r.stale, r.potentially_stale);
      return {
        id: r.id,
        name: r.name,
        description: r.description,
        health: h,
        technicalDebt: 100 - h,
        featureCount: r.active_total,
        memberCount: r.member_count,
        createdAt: iso(r.created_at) as string,
        archivedAt: iso(r.archived_at),
        mode: r.mode,
        favorite: r.favorite,
        defaultStickiness: r.default_stickiness,
        lastUpdatedAt: iso(r.last_updated_at),
        lastReportedFlagUsage: iso(r.last_reported_flag_usage),
        onboardingStatus: r.any_seen
          ? { status: 'onboarded' }
          : r.first_flag
            ? { status: 'first-flag-created', feature: r.first_flag }
            : { status: 'onboarding-started' },
        owners: r.owners,
      };
    }),
  };
}

/** The deprecated project overview (6.x shape): settings, environments, flags and live stats. */
export async function getProjectOverview(
  deps: Deps,
  projectId: string,
  archived: boolean,
  principal: Principal,
): Promise<ProjectOverview> {
  const db = deps.database.db;
  const userId = userIdOf(principal);
  const project = await findProject(db, projectId);
  if (!project) throw notFound(`Could not find project with id "${projectId}".`);
  const [counts, environments, flags] = await Promise.all([
    overviewCounts(db, projectId, userId, deps.now()),
    listProjectEnvironments(db, projectId),
    listFlagOverviews(db, projectId, archived, userId),
  ]);
  if (!counts) throw notFound(`Could not find project with id "${projectId}".`);
  const avg = counts.avg_time_to_prod;
  return {
    version: 1,
    id: project.id,
    name: project.name,
    description: project.description,
    defaultStickiness: project.defaultStickiness,
    mode: project.mode,
    featureLimit: project.featureLimit,
    featureNaming: project.featureNaming,
    members: counts.member_count,
    health: health(counts.active_total, counts.stale, counts.potentially_stale),
    environments: environments.map((e) => ({
      environment: e.environment,
      ...(e.default_strategy ? { defaultStrategy: e.default_strategy as DefaultStrategy } : {}),
    })),
    features: flags.map((f) => ({
      name: f.name,
      description: f.description,
      type: f.type,
      createdAt: iso(f.created_at) as string,
      stale: f.stale,
      impressionData: f.impression_data,
      favorite: f.favorite,
      lastSeenAt: iso(f.last_seen_at),
      archivedAt: iso(f.archived_at),
      environments: f.environments.map((e) => ({
        name: e.name,
        enabled: e.enabled,
        type: e.type,
        sortOrder: e.sort_order,
        variantCount: e.variant_count,
        lastSeenAt: iso(e.last_seen_at),
        hasStrategies: e.has_strategies,
        hasEnabledStrategies: e.has_enabled_strategies,
      })),
      segments: f.segments,
      tags: f.tags,
    })),
    updatedAt: iso(counts.updated_at ?? project.updatedAt),
    createdAt: iso(project.createdAt),
    favorite: counts.favorite,
    stats: {
      // Mean days to one decimal, at least 0.1 when there is any (docs/api.md §5).
      avgTimeToProdCurrentWindow: avg === null ? 0 : Math.max(0.1, Math.round(avg * 10) / 10),
      createdCurrentWindow: counts.created_current,
      createdPastWindow: counts.created_past,
      archivedCurrentWindow: counts.archived_current,
      archivedPastWindow: counts.archived_past,
      projectActivityCurrentWindow: counts.activity_current,
      projectActivityPastWindow: counts.activity_past,
      projectMembersAddedCurrentWindow: counts.members_added,
    },
  };
}
