import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { uiStateOf } from '../ui-state/index.js';
import { findUser, toUser } from './users.store.js';

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
