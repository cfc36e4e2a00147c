import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import type { Reads } from '../../platform/read-cache.js';
import { favoriteFlags } from '../flags/index.js';
import {
  listFlagCreators,
  listFlagOverviews,
  listProjectRows,
  overviewCounts,
  projectExtras,
  windowStats,
} from './overview.store.js';
import type { DefaultStrategy, ProjectOverview } from './projects.schemas.js';
import { findProject, isFavorite, listProjectEnvironments } from './projects.store.js';
import { projectStatusRow } from './status.store.js';

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

/** Kept while nothing changes (ADR 0009), per caller: `favorite` is the caller's. */
export function listProjects(deps: Deps, reads: Reads, principal: Principal) {
  const userId = userIdOf(principal);
  return reads.read(`projects\u0000${userId ?? ''}`, () => projectList(deps, userId));
}

async function projectList(deps: Deps, userId: number | null) {
  const rows = await listProjectRows(deps.database.db, userId);
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
        onboardingStatus: onboardingStatus(r.first_flag, r.any_seen),
        owners: r.owners,
      };
    }),
  };
}

/** The part of an overview only a write changes, kept in the read cache (ADR 0011). */
interface OverviewBase {
  /** Everything but `favorite`, `stats` and `features`, ready to serialise. */
  head: Omit<ProjectOverview, 'favorite' | 'stats' | 'features'>;
  counts: { active: number; stale: number; potentiallyStale: number };
  /** Each flag as JSON, `{"favorite":false,` first so a favorite is a prefix swap. */
  items: string[];
  names: string[];
  /** The items joined: the answer for a caller without favorites among them. */
  joined: string;
}

const NOT_FAVORITE = '{"favorite":false,';
const FAVORITE = '{"favorite":true,';

async function overviewBase(deps: Deps, projectId: string, archived: boolean): Promise<OverviewBase> {
  const db = deps.database.db;
  const project = await findProject(db, projectId);
  if (!project) throw notFound(`Could not find project with id "${projectId}".`);
  const [counts, environments, flags] = await Promise.all([
    overviewCounts(db, projectId),
    listProjectEnvironments(db, projectId),
    listFlagOverviews(db, projectId, archived),
  ]);
  if (!counts) throw notFound(`Could not find project with id "${projectId}".`);
  const items = flags.map((f) =>
    JSON.stringify({
      favorite: false,
      name: f.name,
      description: f.description,
      type: f.type,
      project: projectId,
      archived: f.archived_at !== null,
      createdAt: iso(f.created_at) as string,
      stale: f.stale,
      potentiallyStale: !f.stale && f.potentially_stale,
      impressionData: f.impression_data,
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
    }),
  );
  return {
    head: {
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
      updatedAt: iso(counts.updated_at ?? project.updatedAt),
      createdAt: iso(project.createdAt),
    },
    counts: { active: counts.active_total, stale: counts.stale, potentiallyStale: counts.potentially_stale },
    items,
    names: flags.map((f) => f.name),
    joined: items.join(','),
  };
}

/** The overview base from the read cache, counted by the size of its JSON text. */
export const cachedBase = (deps: Deps, reads: Reads, projectId: string, archived: boolean) =>
  reads.read(
    `project-overview\u0000${projectId}\u0000${archived}`,
    () => overviewBase(deps, projectId, archived),
    {
      bytes: (b) => b.joined.length * 2,
    },
  );

type Stats = ProjectOverview['stats'];

/** The window statistics at `now`, kept while they hold (until a timestamp leaves a window). */
export async function stats(deps: Deps, reads: Reads, projectId: string): Promise<Stats> {
  const now = deps.now().getTime();
  const entry = await reads.readTimed(`project-stats\u0000${projectId}`, now, async () => {
    const row = await windowStats(deps.database.db, projectId, new Date(now));
    if (!row) throw notFound(`Could not find project with id "${projectId}".`);
    const avg = row.avg_time_to_prod;
    const value: Stats = {
      // Mean days to one decimal, at least 0.1 when there is any (docs/api.md §5).
      avgTimeToProdCurrentWindow: avg === null ? 0 : Math.max(0.1, Math.round(avg * 10) / 10),
      createdCurrentWindow: row.created_current,
      createdPastWindow: row.created_past,
      archivedCurrentWindow: row.archived_current,
      archivedPastWindow: row.archived_past,
      projectActivityCurrentWindow: row.activity_current,
      projectActivityPastWindow: row.activity_past,
      projectMembersAddedCurrentWindow: row.members_added,
    };
    // A millisecond short of the boundary: timestamps arrive truncated to milliseconds.
    return { value, from: now, until: row.until_ms === null ? Number.POSITIVE_INFINITY : row.until_ms - 1 };
  });
  return entry.value;
}

/**
 * The overview as JSON text: the cached flags with the caller's favorites swapped in, the
 * caller's project favorite and the statistics at this moment, without serialising 10,000 flags
 * again for every request.
 */
async function overviewJson(
  deps: Deps,
  reads: Reads,
  projectId: string,
  archived: boolean,
  principal: Principal,
  extra: (base: OverviewBase) => Record<string, number>,
): Promise<string> {
  const base = await cachedBase(deps, reads, projectId, archived);
  const [favorites, favorite, windowed] = await Promise.all([
    favoriteFlags(deps, reads, principal),
    isFavorite(deps.database.db, projectId, userIdOf(principal)),
    stats(deps, reads, projectId),
  ]);
  let features = base.joined;
  if (favorites.size > 0 && base.names.some((n) => favorites.has(n))) {
    features = base.items
      .map((item, i) =>
        favorites.has(base.names[i] as string) ? FAVORITE + item.slice(NOT_FAVORITE.length) : item,
      )
      .join(',');
  }
  const head = JSON.stringify({ ...base.head, favorite, stats: windowed, ...extra(base) });
  return `${head.slice(0, -1)},"features":[${features}]}`;
}

/** The deprecated project overview (6.x shape): settings, environments, flags and live stats. */
export const getProjectOverviewJson = (
  deps: Deps,
  reads: Reads,
  projectId: string,
  archived: boolean,
  principal: Principal,
) => overviewJson(deps, reads, projectId, archived, principal, () => ({}));

/**
 * The health report: the overview of the project's non-archived flags with the counts behind its
 * health, computed from the current data (a flag marked stale counts at once).
 */
export const getHealthReportJson = (deps: Deps, reads: Reads, projectId: string, principal: Principal) =>
  overviewJson(deps, reads, projectId, false, principal, (base) => ({
    technicalDebt: 100 - base.head.health,
    potentiallyStaleCount: base.counts.potentiallyStale,
    activeCount: base.counts.active - base.counts.stale,
    staleCount: base.counts.stale,
  }));

/** Onboarding as Unleash shows it: a flag seen by an SDK, else the first flag created. */
export function onboardingStatus(firstFlag: string | null, anySeen: boolean) {
  if (anySeen) return { status: 'onboarded' as const };
  if (firstFlag) return { status: 'first-flag-created' as const, feature: firstFlag };
  return { status: 'onboarding-started' as const };
}

/**
 * The current project overview (`…/overview`): the deprecated one's settings, health and
 * statistics without the flags, plus flag counts per type and onboarding.
 */
export async function getCurrentOverview(deps: Deps, reads: Reads, projectId: string, principal: Principal) {
  const base = await cachedBase(deps, reads, projectId, false);
  const [favorite, windowed, extras] = await Promise.all([
    isFavorite(deps.database.db, projectId, userIdOf(principal)),
    stats(deps, reads, projectId),
    // Kept while nothing changes (flags, their last-seen times and the project all move the version).
    reads.read(`project-extras\u0000${projectId}`, () => projectExtras(deps.database.db, projectId)),
  ]);
  if (!extras) throw notFound(`Could not find project with id "${projectId}".`);
  return {
    ...base.head,
    linkTemplates: [],
    technicalDebt: 100 - base.head.health,
    favorite,
    archivedAt: iso(extras.archived_at),
    onboardingStatus: onboardingStatus(extras.first_flag, extras.any_seen),
    featureTypeCounts: extras.type_counts,
    stats: windowed,
  };
}

/** The creators of active flags across projects, as Unleash's flags overview pages them. */
export async function getAllFlagCreators(deps: Deps, query = '') {
  const flagCreators = await listFlagCreators(deps.database.db, { active: true, nameContains: query });
  return { flagCreators, total: flagCreators.length };
}

export async function getFlagCreators(deps: Deps, reads: Reads, projectId: string) {
  // Kept while nothing changes (flags and users both move the change version).
  const creators = await reads.read(`flag-creators\u0000${projectId}`, async () =>
    (await findProject(deps.database.db, projectId))
      ? await listFlagCreators(deps.database.db, { project: projectId })
      : null,
  );
  if (!creators) throw notFound(`Could not find project with id "${projectId}".`);
  return creators;
}

/** The project status page: activity per day, resources, health and the lifecycle per stage. */
export async function getProjectStatus(deps: Deps, reads: Reads, projectId: string) {
  const base = await cachedBase(deps, reads, projectId, false);
  const now = deps.now().getTime();
  // Kept while nothing changes and no event leaves the year of activity.
  const { value: row } = await reads.readTimed(`project-status\u0000${projectId}`, now, async () => {
    const value = await projectStatusRow(deps.database.db, projectId, new Date(now));
    return { value, from: now, until: value?.until_ms == null ? Number.POSITIVE_INFINITY : value.until_ms };
  });
  if (!row) throw notFound(`Could not find project with id "${projectId}".`);
  const stage = (name: string) => {
    const s = row.stages.find((x) => x.stage === name);
    return {
      averageDays: s?.average_days == null ? null : Math.round(s.average_days),
      currentFlags: s?.current ?? 0,
    };
  };
  return {
    activityCountByDate: row.activity,
    resources: { apiTokens: row.api_tokens, members: row.members, segments: row.segments },
    health: { current: base.head.health },
    technicalDebt: { current: 100 - base.head.health },
    lifecycleSummary: {
      initial: stage('initial'),
      preLive: stage('pre-live'),
      live: stage('live'),
      completed: stage('completed'),
      archived: stage('archived'),
    },
    staleFlags: { total: base.counts.stale + base.counts.potentiallyStale },
  };
}
