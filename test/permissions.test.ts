import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSql } from './config-sql.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { asUser, createUser, login } from './people.js';

/**
 * The permission matrix: every operation of the OpenAPI document (with the permission it declares,
 * `x-permission`) × every kind of caller → allowed, 401 or 403 NoAccessError. What each role may do
 * is written out below, independently of the migration that grants it; an operation declaring a
 * permission this table does not know fails the test, so a new route needs a row here.
 */

/** Root-level grants of the Editor (every project). */
const EDITOR_ROOT = new Set([
  'CREATE_STRATEGY',
  'UPDATE_STRATEGY',
  'DELETE_STRATEGY',
  'CREATE_ADDON',
  'UPDATE_ADDON',
  'DELETE_ADDON',
  'CREATE_CONTEXT_FIELD',
  'UPDATE_CONTEXT_FIELD',
  'DELETE_CONTEXT_FIELD',
  'CREATE_TAG_TYPE',
  'UPDATE_TAG_TYPE',
  'DELETE_TAG_TYPE',
  'CREATE_SEGMENT',
  'UPDATE_SEGMENT',
  'DELETE_SEGMENT',
  'CREATE_PROJECT',
  'READ_API_TOKEN',
  'UPDATE_APPLICATION',
]);
/** What a project Member may do in their project (the Editor may do it in `default`). */
const FLAG_WORK = new Set([
  'CREATE_FEATURE',
  'UPDATE_FEATURE',
  'DELETE_FEATURE',
  'UPDATE_FEATURE_DEPENDENCY',
  'CREATE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_STRATEGY',
  'DELETE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_ENVIRONMENT',
  'UPDATE_FEATURE_ENVIRONMENT_VARIANTS',
]);
/** Project API tokens: project Owners and Members, in their project (not the Editor). */
const PROJECT_TOKENS = new Set([
  'READ_PROJECT_API_TOKEN',
  'CREATE_PROJECT_API_TOKEN',
  'DELETE_PROJECT_API_TOKEN',
]);
/** The Editor also manages the `default` project itself. */
const EDITOR_DEFAULT = new Set([...FLAG_WORK, 'UPDATE_PROJECT', 'DELETE_PROJECT']);
/** A project Owner: all of that in their project, and who has access to it. */
const OWNER = new Set([
  ...EDITOR_DEFAULT,
  ...PROJECT_TOKENS,
  'PROJECT_USER_ACCESS_WRITE',
  'PROJECT_GROUP_ACCESS_WRITE',
]);
/** Only Admins (and admin tokens). */
const ADMIN_ONLY = new Set(['ADMIN', 'CREATE_API_TOKEN', 'DELETE_API_TOKEN', 'UPDATE_INSTANCE_BANNERS']);
const KNOWN = new Set([
  'PUBLIC',
  'NONE',
  'CLIENT',
  'FRONTEND',
  'SDK',
  ...EDITOR_ROOT,
  ...OWNER,
  ...ADMIN_ONLY,
]);

type Caller =
  | 'none'
  | 'admin-token'
  | 'admin'
  | 'editor'
  | 'viewer'
  | 'member-other'
  | 'owner-other'
  | 'group-member-other'
  | 'reader-other'
  | 'client-token'
  | 'frontend-token'
  | 'expired-pat';
type Outcome = 'allowed' | 401 | 403;

/** What the caller should get for an operation needing `permission` in `project` (if any). */
function expected(caller: Caller, permission: string, project: string | undefined): Outcome {
  if (permission === 'PUBLIC') return 'allowed';
  if (caller === 'none' || caller === 'expired-pat') return 401;
  if (permission === 'CLIENT') return caller === 'client-token' ? 'allowed' : 403;
  if (permission === 'FRONTEND') return caller === 'frontend-token' ? 'allowed' : 403;
  // OFREP: either SDK token, nothing else.
  if (permission === 'SDK') return caller === 'client-token' || caller === 'frontend-token' ? 'allowed' : 403;
  if (caller === 'client-token' || caller === 'frontend-token') return 403;
  if (permission === 'NONE' || caller === 'admin-token' || caller === 'admin') return 'allowed';
  if (caller === 'editor') {
    if (EDITOR_ROOT.has(permission)) return 'allowed';
    return project === 'default' && EDITOR_DEFAULT.has(permission) ? 'allowed' : 403;
  }
  if (caller === 'member-other' || caller === 'group-member-other') {
    return project === 'other' && (FLAG_WORK.has(permission) || PROJECT_TOKENS.has(permission))
      ? 'allowed'
      : 403;
  }
  if (caller === 'owner-other') return project === 'other' && OWNER.has(permission) ? 'allowed' : 403;
  return 403; // viewer, reader
}

let t: TestApp;
let clock = Date.now();
const headers = new Map<Caller, Record<string, string | undefined>>();
const flagIn = { default: uniqueName('m-default'), other: uniqueName('m-other') };
let operations: { method: string; path: string; permission: string }[];

beforeAll(async () => {
  t = await startTestApp({ now: () => new Date(clock) });
  const sql = configSql(t);
  expect((await t.send('POST', '/api/admin/projects', { id: 'other', name: 'Other' })).statusCode).toBe(201);
  for (const [project, name] of Object.entries(flagIn)) {
    expect((await t.send('POST', `/api/admin/projects/${project}/features`, { name })).statusCode).toBe(200);
  }
  const session = async (role: 'Admin' | 'Editor' | 'Viewer', projectRole?: number) => {
    const user = await createUser(t, role);
    if (projectRole !== undefined) {
      await t.database.session(async (run) => {
        await run(`INSERT INTO role_user (role_id, user_id, project) VALUES ($1, $2, 'other')`, [
          projectRole,
          user.id,
        ]);
        await run(
          `INSERT INTO events (type, created_by, project) VALUES ('project-access-added', 'test', 'other')`,
          [],
        );
      });
    }
    return { ...user, cookie: await login(t, user.username) };
  };
  const admin = await session('Admin');
  headers.set('none', { authorization: undefined });
  headers.set('admin-token', {});
  headers.set('admin', asUser(admin.cookie));
  headers.set('editor', asUser((await session('Editor')).cookie));
  headers.set('viewer', asUser((await session('Viewer')).cookie));
  headers.set('member-other', asUser((await session('Viewer', 5)).cookie));
  headers.set('reader-other', asUser((await session('Viewer', 6)).cookie));
  headers.set('owner-other', asUser((await session('Viewer', 4)).cookie));
  // A Viewer whose group holds the Member role in `other`.
  const grouped = await createUser(t, 'Viewer');
  const group = await t.send('POST', '/api/admin/groups', {
    name: uniqueName('members'),
    users: [{ user: { id: grouped.id } }],
  });
  expect(group.statusCode).toBe(201);
  const granted = await t.send('POST', '/api/admin/projects/other/access', {
    roles: [5],
    groups: [{ id: group.json().id }],
  });
  expect(granted.statusCode).toBe(200);
  headers.set('group-member-other', asUser(await login(t, grouped.username)));
  headers.set('client-token', { authorization: await sql.addToken('client', ['*'], 'development') });
  headers.set('frontend-token', { authorization: await sql.addToken('frontend', ['*'], 'development') });
  const pat = await t.send(
    'POST',
    '/api/admin/user/tokens',
    { description: 'soon expired', expiresAt: new Date(clock + 60_000).toISOString() },
    asUser(admin.cookie),
  );
  expect(pat.statusCode).toBe(201);
  headers.set('expired-pat', { authorization: pat.json().secret });

  const doc = t.app.swagger() as { paths: Record<string, Record<string, { 'x-permission'?: string }>> };
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      permission: op['x-permission'] ?? '(none declared)',
    })),
  );
  clock += 120_000; // the PAT has expired; sessions (48 h) have not
});
afterAll(() => t.close());

/** The operation's URL in one project; the project a permission check will see (if any). */
function instantiate(op: { method: string; path: string }, project: 'default' | 'other') {
  let seen: string | undefined;
  const url = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (name === 'projectId' || name === 'project') {
      seen = project;
      return project;
    }
    if (name === 'featureName') {
      // Deletes name a flag that does not exist, so the matrix never removes its own flags.
      if (op.method === 'DELETE') return 'matrix-missing';
      seen ??= project;
      return flagIn[project];
    }
    if (name === 'environment' || name === 'environmentId') return 'development';
    if (name === 'id' || name.endsWith('Id')) return '999999';
    return 'matrix-missing';
  });
  return { url, project: seen };
}

describe('permission matrix', () => {
  it('every operation declares a permission the matrix knows', () => {
    const unknown = operations.filter((op) => !KNOWN.has(op.permission));
    expect(unknown).toEqual([]);
    expect(operations.length).toBeGreaterThan(100);
  });

  it('every caller gets exactly its rights on every operation, in both projects', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const op of operations) {
      for (const project of ['default', 'other'] as const) {
        if (project === 'other' && !/\{(projectId|project|featureName)\}/.test(op.path)) continue;
        const { url, project: seen } = instantiate(op, project);
        for (const [caller, callerHeaders] of headers) {
          // Signing out would end the callers' sessions: it is public, one caller shows that.
          if (op.path === '/logout' && caller !== 'none') continue;
          // The signal intake is public to the service's callers but takes only its endpoint's own
          // token: no admin, user or SDK credential opens it (its tests cover the endpoint tokens).
          const want =
            op.path === '/api/signal-endpoint/{name}' ? 401 : expected(caller, op.permission, seen);
          // An allowed stream never ends; its own tests (client-delta) cover the allowed callers.
          if (op.path === '/api/client/streaming' && want === 'allowed') continue;
          const res = await t.send(op.method, url, undefined, callerHeaders);
          const denied = res.statusCode === 403 && res.json().name === 'NoAccessError';
          const got: Outcome = res.statusCode === 401 ? 401 : denied ? 403 : 'allowed';
          checked += 1;
          if (got !== want)
            wrong.push(`${caller} ${op.method} ${url} (${op.permission}): ${res.statusCode}, want ${want}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(1000);
    // About 3,000 requests: every operation × 12 callers × 2 projects.
  }, 180_000);

  it('a 403 names the missing permission and, where relevant, the environment', async () => {
    const viewer = headers.get('viewer');
    const res = await t.send(
      'POST',
      `/api/admin/projects/default/features/${flagIn.default}/environments/development/on`,
      undefined,
      viewer,
    );
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toContain('"UPDATE_FEATURE_ENVIRONMENT"');
    expect(res.json().message).toContain('"development"');
  });
});
