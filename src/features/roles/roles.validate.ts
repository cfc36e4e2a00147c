import type { Permission } from '../../platform/http/auth.js';
import { type ErrorDetail, invalid } from '../../platform/http/errors.js';

/**
 * The permissions a custom role may hold, and where each applies.
 *
 * Decisions (Unleash Enterprise has custom roles; its open-source document has no such paths):
 * - Known names are our `Permission` union. Anything else is a 400 that names the known ones.
 * - `ADMIN` is refused: it is the Admin role's alone, so that "the last Admin" stays a meaningful
 *   guard and nobody hands out everything under another name. `CLIENT` and `FRONTEND` belong to
 *   SDK tokens; a person holding them could reach nothing. Both are refused with a reason.
 * - A custom project role (`custom`) holds project permissions only: it is given in one project,
 *   and a root permission (strategies, context fields, tag types, segments, API tokens, creating
 *   projects) limited to a project would never apply. A custom root role (`root-custom`) may hold
 *   any of them; its grants apply in every project (stored with project '').
 * - Environment-scoped permissions take `environment`: one existing environment, or `*` for all
 *   (the default when it is left out). The other permissions take none (400); `''` counts as none,
 *   as Unleash treats it.
 */

/** Root-level permissions: instance-wide resources, routes without a project. */
const ROOT = [
  'CREATE_PROJECT',
  'CREATE_STRATEGY',
  'UPDATE_STRATEGY',
  'DELETE_STRATEGY',
  'CREATE_ADDON',
  'UPDATE_ADDON',
  'DELETE_ADDON',
  'UPDATE_APPLICATION',
  'UPDATE_INSTANCE_BANNERS',
  'CREATE_CONTEXT_FIELD',
  'UPDATE_CONTEXT_FIELD',
  'DELETE_CONTEXT_FIELD',
  'CREATE_TAG_TYPE',
  'UPDATE_TAG_TYPE',
  'DELETE_TAG_TYPE',
  'CREATE_SEGMENT',
  'UPDATE_SEGMENT',
  'DELETE_SEGMENT',
  'CREATE_API_TOKEN',
  'READ_API_TOKEN',
  'DELETE_API_TOKEN',
] as const satisfies readonly Permission[];

/** Project permissions without an environment. */
const PROJECT = [
  'CREATE_FEATURE',
  'UPDATE_FEATURE',
  'DELETE_FEATURE',
  'UPDATE_FEATURE_DEPENDENCY',
  'UPDATE_PROJECT',
  'DELETE_PROJECT',
  'PROJECT_USER_ACCESS_WRITE',
  'PROJECT_GROUP_ACCESS_WRITE',
  'READ_PROJECT_API_TOKEN',
  'CREATE_PROJECT_API_TOKEN',
  'DELETE_PROJECT_API_TOKEN',
] as const satisfies readonly Permission[];

/** Project permissions limited to environments. */
const ENVIRONMENT = [
  'CREATE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_STRATEGY',
  'DELETE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_ENVIRONMENT',
  'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
  'APPROVE_CHANGE_REQUEST',
  'APPLY_CHANGE_REQUEST',
  'SKIP_CHANGE_REQUEST',
] as const satisfies readonly Permission[];

/** Known but not for custom roles (see above). */
const RESERVED = ['ADMIN', 'CLIENT', 'FRONTEND'] as const satisfies readonly Permission[];

// A permission added to the union must be placed in one of the lists: this fails to compile until then.
type Unplaced = Exclude<
  Permission,
  (typeof ROOT)[number] | (typeof PROJECT)[number] | (typeof ENVIRONMENT)[number] | (typeof RESERVED)[number]
>;
const _everyPermissionPlaced: Record<Unplaced, never> = {};

const rootNames = new Set<string>([...ROOT]);
const projectNames = new Set<string>(PROJECT);
const environmentNames = new Set<string>(ENVIRONMENT);
const reserved = new Set<string>(RESERVED);

export type PermissionScope = 'root' | 'project' | 'environment';

/** Where an assignable permission applies; undefined for a name no custom role may hold. */
export function scopeOf(name: string): PermissionScope | undefined {
  if (rootNames.has(name)) return 'root';
  if (projectNames.has(name)) return 'project';
  if (environmentNames.has(name)) return 'environment';
  return undefined;
}

/** Every name a custom role may hold, for messages and the schema's description. */
export const ASSIGNABLE_PERMISSIONS: readonly string[] = [...ROOT, ...PROJECT, ...ENVIRONMENT];

export type CustomRoleType = 'root-custom' | 'custom';

const key = (g: RoleGrant) => `${g.permission}\u0000${g.environment}`;

/** One stored grant: '' = not environment-scoped; project is always '' for custom roles. */
export interface RoleGrant {
  permission: string;
  environment: string;
}

/**
 * The grants of a custom role from its requested permissions, deduplicated and sorted; a 400
 * naming every problem (with its path) when any permission is unknown or misplaced.
 */
export function roleGrants(
  type: CustomRoleType,
  requested: readonly { name: string; environment?: string | undefined }[],
  environments: ReadonlySet<string>,
): RoleGrant[] {
  const problems: ErrorDetail[] = [];
  const grants = new Map<string, RoleGrant>();
  requested.forEach((p, i) => {
    const path = `/body/permissions/${i}`;
    const name = p.name.trim();
    const environment = p.environment?.trim() ?? '';
    const fail = (message: string, where = '/name') => problems.push({ path: `${path}${where}`, message });
    if (reserved.has(name)) {
      fail(
        name === 'ADMIN'
          ? 'ADMIN cannot be part of a custom role: give the Admin root role instead.'
          : `${name} is the permission of SDK tokens and cannot be part of a role.`,
      );
      return;
    }
    const scoped = environmentNames.has(name);
    if (!scoped && !projectNames.has(name) && !rootNames.has(name)) {
      fail(
        `Unknown permission ${JSON.stringify(name)}. Known permissions: ${ASSIGNABLE_PERMISSIONS.join(', ')}.`,
      );
      return;
    }
    if (type === 'custom' && rootNames.has(name)) {
      fail(
        `${name} is a root permission: a custom project role holds project permissions only (${[...PROJECT, ...ENVIRONMENT].join(', ')}). Use a custom root role (type root-custom) for it.`,
      );
      return;
    }
    if (!scoped && environment !== '') {
      fail(`${name} is not environment-specific: leave out its environment.`, '/environment');
      return;
    }
    if (scoped && environment !== '' && environment !== '*' && !environments.has(environment)) {
      fail(`There is no environment ${JSON.stringify(environment)}.`, '/environment');
      return;
    }
    const grant = { permission: name, environment: scoped ? environment || '*' : '' };
    grants.set(key(grant), grant);
  });
  if (problems.length > 0) throw invalid((problems[0] as ErrorDetail).message, problems);
  // In permission, then environment order (code units: the order the store reads them in).
  return [...grants.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
