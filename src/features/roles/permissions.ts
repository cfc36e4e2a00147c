import { type Static, Type } from 'typebox';
import { ASSIGNABLE_PERMISSIONS, type PermissionScope, scopeOf } from './roles.validate.js';

/**
 * What each permission a custom role may hold is called and where it is shown, for people who
 * pick permissions (the web UI's roles page reads it from `GET /api/admin/permissions`, so the
 * list lives here only). Every assignable permission is listed once: roles.test.ts checks it.
 */
const CATEGORIES: { category: string; permissions: [name: string, displayName: string][] }[] = [
  {
    category: 'Projects',
    permissions: [
      ['CREATE_PROJECT', 'Create projects'],
      ['UPDATE_PROJECT', 'Update project settings'],
      ['DELETE_PROJECT', 'Delete projects'],
      ['PROJECT_USER_ACCESS_WRITE', 'Give users roles in projects'],
      ['PROJECT_GROUP_ACCESS_WRITE', 'Give groups roles in projects'],
    ],
  },
  {
    category: 'Flags',
    permissions: [
      ['CREATE_FEATURE', 'Create flags'],
      ['UPDATE_FEATURE', 'Update flags'],
      ['DELETE_FEATURE', 'Archive and delete flags'],
      ['UPDATE_FEATURE_DEPENDENCY', 'Change flag dependencies'],
    ],
  },
  {
    category: 'Flags in environments',
    permissions: [
      ['UPDATE_FEATURE_ENVIRONMENT', 'Turn flags on and off'],
      ['CREATE_FEATURE_STRATEGY', 'Add strategies'],
      ['UPDATE_FEATURE_STRATEGY', 'Change strategies'],
      ['DELETE_FEATURE_STRATEGY', 'Delete strategies'],
      ['UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'Change variants'],
    ],
  },
  {
    category: 'Change requests',
    permissions: [
      ['APPROVE_CHANGE_REQUEST', 'Approve and reject change requests'],
      ['APPLY_CHANGE_REQUEST', 'Apply change requests'],
      ['SKIP_CHANGE_REQUEST', 'Change without a change request where one is required'],
    ],
  },
  {
    category: 'Project API tokens',
    permissions: [
      ['READ_PROJECT_API_TOKEN', 'See project API tokens'],
      ['CREATE_PROJECT_API_TOKEN', 'Create project API tokens'],
      ['DELETE_PROJECT_API_TOKEN', 'Delete project API tokens'],
    ],
  },
  {
    category: 'API tokens',
    permissions: [
      ['READ_API_TOKEN', 'See API tokens'],
      ['CREATE_API_TOKEN', 'Create API tokens'],
      ['DELETE_API_TOKEN', 'Delete API tokens'],
    ],
  },
  {
    category: 'Segments',
    permissions: [
      ['CREATE_SEGMENT', 'Create segments'],
      ['UPDATE_SEGMENT', 'Update segments'],
      ['DELETE_SEGMENT', 'Delete segments'],
    ],
  },
  {
    category: 'Context fields',
    permissions: [
      ['CREATE_CONTEXT_FIELD', 'Create context fields'],
      ['UPDATE_CONTEXT_FIELD', 'Update context fields'],
      ['DELETE_CONTEXT_FIELD', 'Delete context fields'],
    ],
  },
  {
    category: 'Strategy types',
    permissions: [
      ['CREATE_STRATEGY', 'Create strategy types'],
      ['UPDATE_STRATEGY', 'Update strategy types'],
      ['DELETE_STRATEGY', 'Delete strategy types'],
    ],
  },
  {
    category: 'Tag types',
    permissions: [
      ['CREATE_TAG_TYPE', 'Create tag types'],
      ['UPDATE_TAG_TYPE', 'Update tag types'],
      ['DELETE_TAG_TYPE', 'Delete tag types'],
    ],
  },
  {
    category: 'Integrations and applications',
    permissions: [
      ['CREATE_ADDON', 'Create integrations'],
      ['UPDATE_ADDON', 'Update integrations'],
      ['DELETE_ADDON', 'Delete integrations'],
      ['UPDATE_APPLICATION', 'Update applications'],
    ],
  },
  {
    category: 'Instance',
    permissions: [['UPDATE_INSTANCE_BANNERS', 'Manage the banners everyone sees']],
  },
];

export const PermissionItemSchema = Type.Object({
  name: Type.String({ description: 'The permission, as roles hold it.', examples: ['CREATE_FEATURE'] }),
  displayName: Type.String({ description: 'What it allows, for people.', examples: ['Create flags'] }),
  type: Type.Union([Type.Literal('root'), Type.Literal('project'), Type.Literal('environment')], {
    description:
      '`root`: instance-wide, only in custom root roles; `project`: in a project, in either kind of custom role; `environment`: in a project and limited to environments (`*`: all).',
  }),
  category: Type.String({ description: 'The group it is shown in.', examples: ['Flags'] }),
});
export type PermissionItem = Static<typeof PermissionItemSchema>;

export const PermissionCatalogSchema = Type.Object(
  {
    version: Type.Integer({ description: 'Version of this shape: 1.', examples: [1] }),
    permissions: Type.Array(PermissionItemSchema, {
      description: 'Every permission a custom role may hold, by category, in display order.',
    }),
  },
  { description: 'The permissions custom roles are made of.' },
);
export type PermissionCatalog = Static<typeof PermissionCatalogSchema>;

/** The catalogue, built once; `scopeOf` places each permission (roles.validate.ts's lists). */
export const PERMISSION_CATALOG: PermissionCatalog = {
  version: 1,
  permissions: CATEGORIES.flatMap(({ category, permissions }) =>
    permissions.map(([name, displayName]) => ({
      name,
      displayName,
      type: scopeOf(name) as PermissionScope,
      category,
    })),
  ),
};

/** Assignable permissions the catalogue does not list (none, or a test fails). */
export function unlistedPermissions(): string[] {
  const listed = new Set(PERMISSION_CATALOG.permissions.map((p) => p.name));
  return ASSIGNABLE_PERMISSIONS.filter((name) => !listed.has(name));
}
