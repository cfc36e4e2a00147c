import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { health, onboardingStatus } from '../projects/index.js';
import { avatarUrl, findUsers, toUser, type UserRow } from '../users/index.js';
import {
  adminIds,
  ownerIds,
  personalFlags,
  personalProjects,
  projectDetails,
} from './personal-dashboard.store.js';

/** Only people have a dashboard of their own; API tokens get the instance-wide parts only. */
const userIdOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);

const asOwner = (row: UserRow) => ({
  ownerType: 'user' as const,
  name: row.name ?? row.username ?? row.email ?? '',
  imageUrl: toUser(row).imageUrl,
  email: row.email,
});

/**
 * The caller's dashboard (Unleash's personal dashboard): the flags they created or favorited, the
 * projects where they hold a role with the owners of those, and the instance's admins.
 */
export async function getPersonalDashboard(deps: Deps, principal: Principal) {
  const db = deps.database.db;
  const userId = userIdOf(principal);
  const [flags, projects, admins] = await Promise.all([
    userId === null ? [] : personalFlags(db, userId),
    userId === null ? [] : personalProjects(db, userId),
    adminIds(db).then((ids) => findUsers(db, ids)),
  ]);
  const owners = await findUsers(
    db,
    await ownerIds(
      db,
      projects.map((p) => p.id),
    ),
  );
  return {
    admins: admins.map((row) => ({
      id: row.id,
      ...(row.name !== null && { name: row.name }),
      ...(row.username !== null && { username: row.username }),
      imageUrl: toUser(row).imageUrl,
      ...(row.email !== null && { email: row.email }),
    })),
    projectOwners: owners.map(asOwner),
    projects: projects.map((p) => {
      const h = health(p.total, p.stale, p.potentially_stale);
      return {
        id: p.id,
        name: p.name,
        health: h,
        technicalDebt: 100 - h,
        memberCount: p.member_count,
        featureCount: p.total,
      };
    }),
    flags,
  };
}

/**
 * One project of the dashboard: flag counts and health, onboarding, the 10 newest events, owners
 * and the caller's roles there. No health history is kept, so the 4-week averages are null, and
 * event summaries are not generated (null).
 */
export async function getPersonalProject(deps: Deps, projectId: string, principal: Principal) {
  const db = deps.database.db;
  const row = await projectDetails(db, projectId, userIdOf(principal));
  if (!row) throw notFound(`Could not find project with id "${projectId}".`);
  const creatorIds = row.events.flatMap((e) => (e.created_by_user_id !== null ? [e.created_by_user_id] : []));
  const [owners, creators] = await Promise.all([
    findUsers(db, row.owner_user_ids),
    findUsers(db, [...new Set(creatorIds)]),
  ]);
  const imageOf = new Map(creators.map((u) => [u.id, toUser(u).imageUrl]));
  const h = health(row.total, row.stale, row.potentially_stale);
  const ownerList = [
    ...owners.map(asOwner).sort((a, b) => a.name.localeCompare(b.name)),
    ...row.owner_groups.map((name) => ({ ownerType: 'group', name })),
  ];
  return {
    insights: {
      avgHealthCurrentWindow: null,
      avgHealthPastWindow: null,
      totalFlags: row.total,
      activeFlags: row.total - row.stale - row.potentially_stale,
      staleFlags: row.stale,
      potentiallyStaleFlags: row.potentially_stale,
      health: h,
      technicalDebt: 100 - h,
    },
    onboardingStatus: onboardingStatus(row.first_flag, row.any_seen),
    latestEvents: row.events.map((e) => ({
      id: e.id,
      summary: null,
      createdBy: e.created_by ?? 'unknown',
      createdByImageUrl:
        (e.created_by_user_id !== null && imageOf.get(e.created_by_user_id)) ||
        avatarUrl(e.created_by ?? 'unknown'),
      createdAt: new Date(e.created_at).toISOString(),
    })),
    owners: ownerList.length > 0 ? ownerList : [{ ownerType: 'system' }],
    roles: row.roles,
  };
}
