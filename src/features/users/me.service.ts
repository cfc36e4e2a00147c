import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalid } from '../../platform/http/errors.js';
import { uiStateOf } from '../ui-state/index.js';
import { findUser, groupsOfUser, projectsOfUser, type RoleRow, rolesOfUser, toUser } from './users.store.js';

/**
 * The caller and its permissions. An API token is shown as a synthetic user that names the token
 * but never carries its secret.
 */
export async function describeCaller(deps: Deps, principal: Principal) {
  const permissions = principal.grants.map((g) => ({
    permission: g.permission,
    ...(g.project !== undefined && { project: g.project }),
    ...(g.environment !== undefined && { environment: g.environment }),
  }));
  if (principal.kind !== 'user') {
    return {
      user: { id: principal.userId, username: principal.name, accountType: 'API token', isAPI: true },
      permissions,
      feedback: [],
      splash: {},
    };
  }
  const [row, state] = await Promise.all([
    findUser(deps.database.db, principal.userId),
    uiStateOf(deps, principal.userId),
  ]);
  const user = row ? toUser(row) : { id: principal.userId };
  return { user, permissions, ...state };
}

const toRole = (r: RoleRow) => ({ id: r.id, name: r.name, type: r.type, description: r.description ?? '' });

function personOf(principal: Principal): number {
  if (principal.kind !== 'user') throw invalid('API tokens have no profile or roles; sign in as a user.');
  return principal.userId;
}

/** The signed-in user's root role, projects and groups (`GET /api/admin/user/profile`). */
export async function describeProfile(deps: Deps, principal: Principal) {
  const userId = personOf(principal);
  const db = deps.database.db;
  const [row, roles, projects, groups] = await Promise.all([
    findUser(db, userId),
    rolesOfUser(db, userId),
    projectsOfUser(db, userId),
    groupsOfUser(db, userId),
  ]);
  const root = roles.find((r) => r.type === 'root' || r.type === 'root-custom');
  return {
    rootRole: root ? toRole(root) : { id: 3, name: 'Viewer', type: 'root', description: '' },
    projects,
    groups,
    subscriptions: [],
    features: [],
    canChangePassword: row?.password_hash != null,
  };
}

/** The roles the signed-in user holds, directly or through groups; project roles of one project. */
export async function describeMyRoles(deps: Deps, principal: Principal, projectId?: string) {
  const roles = await rolesOfUser(deps.database.db, personOf(principal), projectId);
  return { version: 1, roles: roles.map(toRole) };
}
