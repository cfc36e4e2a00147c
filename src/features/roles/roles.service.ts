import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, invalid, invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import type { CreateRoleInput, Role, RoleWithPermissions, UpdateRoleInput } from './roles.schemas.js';
import {
  deleteRole,
  environmentNames,
  findRole,
  type GrantRow,
  insertRole,
  listAllRoles,
  listGrants,
  type RoleRow,
  replaceGrants,
  roleHolders,
  updateRole,
} from './roles.store.js';
import { type CustomRoleType, type RoleGrant, roleGrants } from './roles.validate.js';

/**
 * Custom roles (`/api/admin/roles`), as Unleash Enterprise has them. Decisions where Unleash's
 * open-source document is silent or where we differ:
 * - Reads are open to every signed-in caller (Unleash: NONE for the list); writes need ADMIN.
 * - Built-in roles (Admin, Editor, Viewer, Owner, Member, Reader) cannot be changed or deleted:
 *   403 InvalidOperationError, as Unleash.
 * - A name taken in any letter case is a 409 (Unleash: 409 NameExistsError too).
 * - Creating answers 201 with `Location: roles/<id>` and the role with its permissions (Unleash:
 *   200 with `{version, roles: <the role>}`); updating answers 200 with the role with its
 *   permissions.
 * - `type` is left out: `custom` (a project role), as Unleash. It cannot change afterwards (400):
 *   a root role in use as someone's root role cannot become a project role or the reverse.
 * - PUT: `name` is required; `description` and `permissions` left out keep their value (Unleash
 *   removes the permissions of a PUT without them). A PUT that changes nothing records nothing.
 * - Deleting a role someone holds (users' or service accounts' root role, a project role of a
 *   user or group, a group's root role, an invite link's role) is a 400 that says who holds it,
 *   as Unleash's RoleInUseError; nothing is removed from anyone.
 * - Events `role-created` (data: the role with its permissions), `role-updated` (data, preData),
 *   `role-deleted` (preData), each in the transaction of its change. Every instance applies a
 *   change of permissions at once: the caller's grants are read through the read cache, whose
 *   version moves with every event.
 */

const BUILT_IN = new Set(['root', 'project']);

const toRole = (row: RoleRow): Role => ({
  id: row.id,
  name: row.name,
  type: row.type,
  description: row.description ?? '',
});

const toPermission = (g: GrantRow) => ({
  name: g.permission,
  ...(g.environment !== '' && { environment: g.environment }),
  ...(g.project !== '' && { project: g.project }),
});

const withPermissions = (row: RoleRow, grants: GrantRow[]): RoleWithPermissions => ({
  ...toRole(row),
  permissions: grants.map(toPermission),
});

export async function listRoles(db: Db) {
  return { version: 1, roles: (await listAllRoles(db)).map(toRole) };
}

export async function getRole(db: Db, id: number): Promise<RoleWithPermissions> {
  const row = await findRole(db, id);
  if (!row) throw notFoundRole(id);
  return withPermissions(row, await listGrants(db, id));
}

const notFoundRole = (id: number) => notFound(`Could not find a role with id ${id}.`);

function roleName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw invalidField('/body/name', 'The role name cannot be empty.');
  return trimmed;
}

/** A taken name (roles_name_lower_unique, any letter case) is a 409. */
async function uniqueName<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (sqlState(error) === '23505') throw nameExists(`There already is a role named "${name}".`);
    throw error;
  }
}

const event = (by: Principal, type: string, payload: { data?: unknown; preData?: unknown }) => ({
  type,
  createdBy: by.name,
  createdByUserId: by.userId,
  ...payload,
});

const asGrantRows = (grants: RoleGrant[]): GrantRow[] => grants.map((g) => ({ ...g, project: '' }));

export async function createRole(
  deps: Deps,
  input: CreateRoleInput,
  by: Principal,
): Promise<RoleWithPermissions> {
  const name = roleName(input.name);
  const type: CustomRoleType = input.type ?? 'custom';
  return uniqueName(name, () =>
    transaction(deps.database.db, async (tx) => {
      const grants = roleGrants(type, input.permissions ?? [], await environmentNames(tx));
      const row = await insertRole(tx, { name, type, description: input.description ?? null });
      await replaceGrants(tx, row.id, grants);
      const role = withPermissions(row, asGrantRows(grants));
      await appendEvent(tx, event(by, 'role-created', { data: role }));
      return role;
    }),
  );
}

/** The role, locked; 404 when there is none, 403 for a built-in one. */
async function customRole(db: Db, id: number, lock: 'update' | 'no-key'): Promise<RoleRow> {
  const row = await findRole(db, id, lock);
  if (!row) throw notFoundRole(id);
  if (BUILT_IN.has(row.type)) {
    throw new AppError(
      'InvalidOperationError',
      `"${row.name}" is a built-in role: it cannot be changed or deleted.`,
    );
  }
  return row;
}

export async function changeRole(
  deps: Deps,
  id: number,
  input: UpdateRoleInput,
  by: Principal,
): Promise<RoleWithPermissions> {
  const name = roleName(input.name);
  return uniqueName(name, () =>
    transaction(deps.database.db, async (tx) => {
      const before = await customRole(tx, id, 'no-key');
      const type = before.type as CustomRoleType;
      if (input.type !== undefined && input.type !== type) {
        throw invalidField(
          '/body/type',
          `The role is of type ${type}; a role's type cannot change. Create a new role of type ${input.type} instead.`,
        );
      }
      const grantsBefore = await listGrants(tx, id);
      const grants =
        input.permissions === undefined
          ? grantsBefore
          : asGrantRows(roleGrants(type, input.permissions, await environmentNames(tx)));
      const description = input.description === undefined ? before.description : input.description;
      // Both lists are in the same order (the store's, and roleGrants sorts the same way).
      const previous = withPermissions(before, grantsBefore);
      if (
        JSON.stringify(withPermissions({ ...before, name, description }, grants)) === JSON.stringify(previous)
      ) {
        return previous;
      }
      const after = await updateRole(tx, id, { name, description });
      if (input.permissions !== undefined) await replaceGrants(tx, id, grants);
      const role = withPermissions(after, grants);
      await appendEvent(tx, event(by, 'role-updated', { data: role, preData: previous }));
      return role;
    }),
  );
}

export async function removeRole(deps: Deps, id: number, by: Principal): Promise<void> {
  await transaction(deps.database.db, async (tx) => {
    // Locked first: anyone giving the role to a user or group meanwhile waits, then fails.
    const before = await customRole(tx, id, 'update');
    const holders = await roleHolders(tx, id);
    const uses = [
      holders.rootUsers && `${holders.rootUsers} user(s) or service account(s) as their root role`,
      holders.projectUsers && `${holders.projectUsers} user(s) in projects`,
      holders.groups && `${holders.groups} group(s)`,
      holders.inviteLinks && `${holders.inviteLinks} invite link(s)`,
    ].filter((use): use is string => typeof use === 'string');
    if (uses.length > 0) {
      throw invalid(
        `The role "${before.name}" is in use by ${uses.join(', ')}. Take it away from them before deleting it.`,
      );
    }
    const grants = await listGrants(tx, id);
    await deleteRole(tx, id);
    await appendEvent(tx, event(by, 'role-deleted', { preData: withPermissions(before, grants) }));
  });
}
