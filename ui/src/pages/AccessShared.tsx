/** Shapes of the identity-and-access answers (see openapi.json: Groups, Roles, Projects). */
export interface Person {
  id: number;
  name?: string | null;
  username?: string | null;
  email?: string | null;
}
export interface UserGroup {
  id: number;
  name: string;
  description?: string | null;
  mappingsSSO: string[];
  rootRole: number | null;
  users: { user: Person }[];
  projects: string[];
  userCount: number;
}
export interface RoleSummary {
  id: number;
  name: string;
  /** `root`/`project`: predefined; `root-custom`/`custom`: made by an admin. */
  type: string;
  description: string;
}
export interface RolePermission {
  name: string;
  environment?: string;
  project?: string;
}
export interface RoleDetail extends RoleSummary {
  permissions: RolePermission[];
}

/** Query keys of these pages (mutations invalidate them). */
export const accessKeys = {
  groups: ['access', 'groups'] as const,
  roles: ['access', 'roles'] as const,
  role: (id: number) => ['access', 'roles', id] as const,
  inviteLinks: ['access', 'invite-links'] as const,
  people: ['access', 'people'] as const,
  project: (id: string) => ['access', 'project', id] as const,
  projectAccess: (id: string) => ['access', 'project-access', id] as const,
};

export const personLabel = (u: Person) => u.name || u.username || u.email || `user ${u.id}`;

export const isCustomRole = (r: { type: string }) => r.type === 'root-custom' || r.type === 'custom';

export const ROLE_TYPE_LABEL: Record<string, string> = {
  root: 'Predefined root role',
  project: 'Predefined project role',
  'root-custom': 'Custom root role',
  custom: 'Custom project role',
};
