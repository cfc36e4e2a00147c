/**
 * The permissions a custom role may hold, by category. The service has no endpoint listing them,
 * so this mirrors src/features/roles/roles.validate.ts (ROOT, PROJECT, ENVIRONMENT): keep both in
 * step. `root`: only in custom root roles; `project`: in both kinds; `environment`: project
 * permissions limited to environments (`*` = all).
 */
export type PermissionScope = 'root' | 'project' | 'environment';

export interface PermissionInfo {
  name: string;
  label: string;
  scope: PermissionScope;
}

const p = (name: string, label: string, scope: PermissionScope): PermissionInfo => ({ name, label, scope });

export const PERMISSION_CATEGORIES: { category: string; permissions: PermissionInfo[] }[] = [
  {
    category: 'Projects',
    permissions: [
      p('CREATE_PROJECT', 'Create projects', 'root'),
      p('UPDATE_PROJECT', 'Update project settings', 'project'),
      p('DELETE_PROJECT', 'Delete projects', 'project'),
      p('PROJECT_USER_ACCESS_WRITE', 'Give users roles in projects', 'project'),
      p('PROJECT_GROUP_ACCESS_WRITE', 'Give groups roles in projects', 'project'),
    ],
  },
  {
    category: 'Flags',
    permissions: [
      p('CREATE_FEATURE', 'Create flags', 'project'),
      p('UPDATE_FEATURE', 'Update flags', 'project'),
      p('DELETE_FEATURE', 'Archive and delete flags', 'project'),
      p('UPDATE_FEATURE_DEPENDENCY', 'Change flag dependencies', 'project'),
    ],
  },
  {
    category: 'Flags in environments',
    permissions: [
      p('UPDATE_FEATURE_ENVIRONMENT', 'Turn flags on and off', 'environment'),
      p('CREATE_FEATURE_STRATEGY', 'Add strategies', 'environment'),
      p('UPDATE_FEATURE_STRATEGY', 'Change strategies', 'environment'),
      p('DELETE_FEATURE_STRATEGY', 'Delete strategies', 'environment'),
      p('UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'Change variants', 'environment'),
    ],
  },
  {
    category: 'Project API tokens',
    permissions: [
      p('READ_PROJECT_API_TOKEN', 'See project API tokens', 'project'),
      p('CREATE_PROJECT_API_TOKEN', 'Create project API tokens', 'project'),
      p('DELETE_PROJECT_API_TOKEN', 'Delete project API tokens', 'project'),
    ],
  },
  {
    category: 'API tokens',
    permissions: [
      p('READ_API_TOKEN', 'See API tokens', 'root'),
      p('CREATE_API_TOKEN', 'Create API tokens', 'root'),
      p('DELETE_API_TOKEN', 'Delete API tokens', 'root'),
    ],
  },
  {
    category: 'Segments',
    permissions: [
      p('CREATE_SEGMENT', 'Create segments', 'root'),
      p('UPDATE_SEGMENT', 'Update segments', 'root'),
      p('DELETE_SEGMENT', 'Delete segments', 'root'),
    ],
  },
  {
    category: 'Context fields',
    permissions: [
      p('CREATE_CONTEXT_FIELD', 'Create context fields', 'root'),
      p('UPDATE_CONTEXT_FIELD', 'Update context fields', 'root'),
      p('DELETE_CONTEXT_FIELD', 'Delete context fields', 'root'),
    ],
  },
  {
    category: 'Strategy types',
    permissions: [
      p('CREATE_STRATEGY', 'Create strategy types', 'root'),
      p('UPDATE_STRATEGY', 'Update strategy types', 'root'),
      p('DELETE_STRATEGY', 'Delete strategy types', 'root'),
    ],
  },
  {
    category: 'Tag types',
    permissions: [
      p('CREATE_TAG_TYPE', 'Create tag types', 'root'),
      p('UPDATE_TAG_TYPE', 'Update tag types', 'root'),
      p('DELETE_TAG_TYPE', 'Delete tag types', 'root'),
    ],
  },
  {
    category: 'Integrations and applications',
    permissions: [
      p('CREATE_ADDON', 'Create integrations', 'root'),
      p('UPDATE_ADDON', 'Update integrations', 'root'),
      p('DELETE_ADDON', 'Delete integrations', 'root'),
      p('UPDATE_APPLICATION', 'Update applications', 'root'),
    ],
  },
];

export const PERMISSIONS = new Map(
  PERMISSION_CATEGORIES.flatMap((c) => c.permissions).map((info) => [info.name, info]),
);
