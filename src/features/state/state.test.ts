import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { buildConfiguration } from '../../../test/transfer.js';

/** GET /api/admin/state/export and POST /api/admin/state/import (docs/api.md §10c). */

type StateDoc = {
  version: number;
  features: { name: string; project: string; description: string | null; stale: boolean }[];
  featureStrategies: { id: string; featureName: string; environment: string; strategyName: string }[];
  featureEnvironments: { featureName: string; environment: string; enabled: boolean; variants?: unknown[] }[];
  featureTags: { featureName: string; tagType: string; tagValue: string }[];
  featureStrategySegments: { featureStrategyId: string; segmentId: number }[];
  [key: string]: unknown;
};

let source: TestApp;
let target: TestApp;
beforeAll(async () => {
  [source, target] = await Promise.all([startTestApp(), startTestApp()]);
  await buildConfiguration(source, 'st');
});
afterAll(() => Promise.all([source?.close(), target?.close()]));

async function exportOf(t: TestApp): Promise<StateDoc> {
  const res = await t.send('GET', '/api/admin/state/export');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const importInto = (t: TestApp, doc: unknown, query = '') =>
  t.send('POST', `/api/admin/state/import${query}`, doc);

async function lastEventId(t: TestApp): Promise<number> {
  const res = await t.send('GET', '/api/admin/events');
  return res.json().events[0]?.id ?? 0;
}

async function eventsSince(t: TestApp, id: number): Promise<{ type: string; featureName?: string }[]> {
  const res = await t.send('GET', '/api/admin/events');
  return (res.json().events as { id: number; type: string; featureName?: string }[]).filter((e) => e.id > id);
}

describe('state export → import into a fresh instance → export', () => {
  it('gives the same document, with the events of each change', async () => {
    const exported = await exportOf(source);
    expect(exported.version).toBe(4);
    expect(exported.features.map((f) => f.name)).toEqual([
      'st-checkout',
      'st-child',
      'st-experiment',
      'st-kill',
    ]);
    expect(exported.featureStrategies.length).toBeGreaterThan(0);

    const before = await lastEventId(target);
    const res = await importInto(target, exported);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.body).toBe('');
    expect(await exportOf(target)).toEqual(exported);

    const types = (await eventsSince(target, before)).map((e) => e.type);
    expect(types[0]).toBe('state-imported');
    expect(types).toContain('feature-created');
    expect(types).toContain('feature-strategy-add');
    expect(types).toContain('feature-environment-enabled');
    expect(types).toContain('tag-type-created');

    // Again: nothing changes and nothing is recorded, with keep and without.
    const last = await lastEventId(target);
    expect((await importInto(target, exported)).statusCode).toBe(202);
    expect((await importInto(target, exported, '?keep=false')).statusCode).toBe(202);
    expect(await lastEventId(target)).toBe(last);
  });

  it('keep (default) leaves existing flags alone; keep=false makes them the document’s', async () => {
    const t = await startTestApp();
    try {
      const doc = await exportOf(source);
      expect((await importInto(t, doc)).statusCode).toBe(202);
      const changed = {
        ...doc,
        features: doc.features.map((f) =>
          f.name === 'st-kill' ? { ...f, description: 'changed', stale: true } : f,
        ),
        featureEnvironments: doc.featureEnvironments.map((e) =>
          e.featureName === 'st-kill' ? { ...e, enabled: !e.enabled } : e,
        ),
        featureStrategies: doc.featureStrategies.filter((s) => s.featureName !== 'st-checkout'),
        featureStrategySegments: doc.featureStrategySegments.filter((l) =>
          doc.featureStrategies.some((s) => s.id === l.featureStrategyId && s.featureName !== 'st-checkout'),
        ),
      };
      expect((await importInto(t, changed)).statusCode).toBe(202);
      expect(await exportOf(t)).toEqual(doc);
      for (const keep of ['0', 'false']) {
        expect((await importInto(t, changed, `?keep=${keep}`)).statusCode).toBe(202);
      }
      const after = await exportOf(t);
      expect(after).toEqual(changed);
      expect(after.features.find((f) => f.name === 'st-kill')).toMatchObject({
        description: 'changed',
        stale: true,
      });
      // keep=1 is truthy: importing the original leaves the changed flags.
      expect((await importInto(t, doc, '?keep=1')).statusCode).toBe(202);
      expect(await exportOf(t)).toEqual(changed);
    } finally {
      await t.close();
    }
  });

  it('takes YAML', async () => {
    const t = await startTestApp();
    try {
      const doc = await exportOf(source);
      const res = await t.request({
        method: 'POST',
        url: '/api/admin/state/import',
        payload: stringify(doc),
        headers: { 'content-type': 'application/yaml' },
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(await exportOf(t)).toEqual(doc);
    } finally {
      await t.close();
    }
  });
});

describe('an Unleash 5.x state document', () => {
  it('is imported, extra fields ignored', async () => {
    const t = await startTestApp();
    try {
      const doc = {
        version: 4,
        features: [
          {
            name: 'u5-flag',
            description: 'From Unleash 5',
            type: 'experiment',
            project: 'default',
            stale: false,
            variants: [],
            createdAt: '2023-05-01T10:00:00.000Z',
            lastSeenAt: null,
            impressionData: true,
            archived: false,
          },
          { name: 'u5-archived', project: 'default', type: 'release', archived: true },
        ],
        strategies: [
          {
            name: 'default',
            displayName: 'Standard',
            description: 'On for all',
            editable: false,
            deprecated: false,
            parameters: [],
          },
        ],
        tags: [{ value: 'u5-team', type: 'simple' }],
        tagTypes: [{ name: 'simple', description: 'Simple', icon: null }],
        featureTags: [{ featureName: 'u5-flag', tagType: 'simple', tagValue: 'u5-team' }],
        projects: [
          {
            id: 'default',
            name: 'Default',
            description: 'Default project',
            createdAt: '2023-01-01T00:00:00Z',
            health: 100,
          },
        ],
        featureStrategies: [
          {
            id: '2b2e2a5c-4d2c-4b8a-9f3e-1f2a3b4c5d6e',
            featureName: 'u5-flag',
            projectId: 'default',
            environment: 'development',
            strategyName: 'flexibleRollout',
            parameters: { rollout: '25', stickiness: 'default', groupId: 'u5-flag' },
            constraints: [
              {
                contextName: 'appName',
                operator: 'IN',
                values: ['web'],
                caseInsensitive: false,
                inverted: false,
              },
            ],
            sortOrder: 0,
            createdAt: '2023-05-01T10:00:00.000Z',
          },
          { featureName: 'u5-archived', environment: 'development', strategyName: 'default' },
        ],
        featureEnvironments: [
          {
            enabled: true,
            featureName: 'u5-flag',
            environment: 'development',
            variants: [
              {
                name: 'blue',
                weight: 1000,
                weightType: 'variable',
                stickiness: 'default',
                payload: { type: 'string', value: 'b', note: 'extra' },
                overrides: [{ contextName: 'userId', values: ['u1'], note: 'extra' }],
              },
            ],
          },
          { enabled: false, featureName: 'u5-flag', environment: 'production', variants: [] },
        ],
        environments: [
          { name: 'development', type: 'development', sortOrder: 100, enabled: true, protected: false },
          { name: 'production', type: 'production', sortOrder: 200, enabled: true, protected: true },
        ],
        segments: [
          {
            id: 7,
            name: 'u5-seg',
            description: '',
            constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }],
            createdBy: 'admin',
            createdAt: '2023-05-01T10:00:00.000Z',
          },
        ],
        featureStrategySegments: [
          {
            featureStrategyId: '2b2e2a5c-4d2c-4b8a-9f3e-1f2a3b4c5d6e',
            segmentId: 7,
            createdAt: '2023-05-01T10:00:00.000Z',
          },
        ],
      };
      const res = await importInto(t, doc);
      expect(res.statusCode, res.body).toBe(202);
      const after = await exportOf(t);
      expect(after.features).toEqual([
        {
          name: 'u5-flag',
          project: 'default',
          type: 'experiment',
          description: 'From Unleash 5',
          stale: false,
          impressionData: true,
          archived: false,
        },
      ]);
      expect(after.featureStrategies).toEqual([
        {
          id: '2b2e2a5c-4d2c-4b8a-9f3e-1f2a3b4c5d6e',
          featureName: 'u5-flag',
          projectId: 'default',
          environment: 'development',
          strategyName: 'flexibleRollout',
          title: null,
          disabled: false,
          sortOrder: 0,
          parameters: { rollout: '25', stickiness: 'default', groupId: 'u5-flag' },
          constraints: [
            {
              contextName: 'appName',
              operator: 'IN',
              values: ['web'],
              caseInsensitive: false,
              inverted: false,
            },
          ],
          variants: [],
        },
      ]);
      expect(after.featureEnvironments.filter((e) => e.featureName === 'u5-flag')).toEqual([
        {
          featureName: 'u5-flag',
          environment: 'development',
          enabled: true,
          variants: [
            {
              name: 'blue',
              weight: 1000,
              weightType: 'variable',
              stickiness: 'default',
              payload: { type: 'string', value: 'b' },
              overrides: [{ contextName: 'userId', values: ['u1'] }],
            },
          ],
        },
        { featureName: 'u5-flag', environment: 'production', enabled: false, variants: [] },
      ]);
      // The stored variants carry no extra field: the playground shows them as stored.
      const played = await t.send('POST', '/api/admin/playground', {
        environment: 'development',
        projects: ['default'],
        context: { appName: 'web', userId: 'u1' },
      });
      const u5 = played.json().features.find((f: { name: string }) => f.name === 'u5-flag');
      expect(u5.variants).toEqual(after.featureEnvironments[0]?.variants);
      expect(u5.variants[0].payload).toEqual({ type: 'string', value: 'b' });
      expect(after.featureTags).toEqual([{ featureName: 'u5-flag', tagType: 'simple', tagValue: 'u5-team' }]);
      expect(after.segments).toEqual([
        {
          id: 7,
          name: 'u5-seg',
          description: null,
          project: null,
          constraints: [
            {
              contextName: 'userId',
              operator: 'IN',
              values: ['u1'],
              caseInsensitive: false,
              inverted: false,
            },
          ],
        },
      ]);
      expect(after.featureStrategySegments).toEqual([
        { featureStrategyId: '2b2e2a5c-4d2c-4b8a-9f3e-1f2a3b4c5d6e', segmentId: 7 },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('a bad document', () => {
  const flag = { name: 'bad-new', project: 'default', type: 'release' };
  const cases: [string, unknown, string][] = [
    ['no version', { features: [] }, '/body'],
    ['a wrong type', { version: 4, features: [{ ...flag, stale: 'yes' }] }, '/body/features/0/stale'],
    ['a flag without project', { version: 4, features: [{ name: 'bad-new' }] }, '/body/features/0'],
    [
      'an unknown project',
      { version: 4, features: [{ ...flag, project: 'nope' }] },
      '/body/features/0/project',
    ],
    ['an unknown flag type', { version: 4, features: [{ ...flag, type: 'nope' }] }, '/body/features/0/type'],
    [
      'a strategy of an unlisted flag',
      {
        version: 4,
        features: [flag],
        featureStrategies: [{ featureName: 'other', environment: 'development', strategyName: 'default' }],
      },
      '/body/featureStrategies/0',
    ],
    [
      'an unknown strategy type',
      {
        version: 4,
        features: [flag],
        featureStrategies: [{ featureName: 'bad-new', environment: 'development', strategyName: 'nope' }],
      },
      '/body/featureStrategies/0/strategyName',
    ],
    [
      'an unknown environment',
      {
        version: 4,
        features: [flag],
        featureEnvironments: [{ featureName: 'bad-new', environment: 'nope', enabled: true }],
      },
      '/body/featureEnvironments/0/environment',
    ],
    [
      'a bad constraint',
      {
        version: 4,
        features: [flag],
        featureStrategies: [
          {
            featureName: 'bad-new',
            environment: 'development',
            strategyName: 'default',
            constraints: [{ contextName: 'userId', operator: 'NOPE', values: ['a'] }],
          },
        ],
      },
      '/body/featureStrategies/0/constraints/0',
    ],
    [
      'an unknown tag type',
      {
        version: 4,
        features: [flag],
        featureTags: [{ featureName: 'bad-new', tagType: 'nope', tagValue: 'xx' }],
      },
      '/body/featureTags/0/tagType',
    ],
    ['a segment without name', { version: 4, segments: [{ id: 1 }] }, '/body/segments/0'],
    [
      'a segment id out of range',
      { version: 4, segments: [{ id: 2 ** 40, name: 'big', constraints: [] }] },
      '/body/segments/0/id',
    ],
    [
      'a segment with a bad constraint',
      {
        version: 4,
        segments: [
          { id: 1, name: 'bad-seg', constraints: [{ contextName: 'a', operator: 'NOPE', values: [] }] },
        ],
      },
      '/body/segments/0/constraints/0',
    ],
    [
      'a strategy using an unknown segment',
      {
        version: 4,
        features: [flag],
        featureStrategies: [
          { featureName: 'bad-new', environment: 'development', strategyName: 'default', segments: [999] },
        ],
      },
      '/body/featureStrategies/0/segments',
    ],
    [
      'a segment link to an unknown strategy',
      {
        version: 4,
        segments: [{ id: 1, name: 'bad-seg', constraints: [] }],
        featureStrategySegments: [{ featureStrategyId: 'nope', segmentId: 1 }],
      },
      '/body/featureStrategySegments/0/featureStrategyId',
    ],
    [
      'a flag in a project that is neither here nor in projects',
      { version: 4, projects: [{ id: 'other', name: 'Other' }], features: [{ ...flag, project: 'nope' }] },
      '/body/features/0/project',
    ],
    [
      'a flag name that is not URL-safe',
      { version: 4, features: [{ ...flag, name: 'a b' }] },
      '/body/features/0/name',
    ],
    [
      'a strategy id twice',
      {
        version: 4,
        features: [flag],
        featureStrategies: [0, 1].map(() => ({
          id: 'same-id',
          featureName: 'bad-new',
          environment: 'development',
          strategyName: 'default',
        })),
      },
      '/body/featureStrategies/1/id',
    ],
    [
      'variant weights that cannot be shared',
      {
        version: 4,
        features: [flag],
        featureEnvironments: [
          {
            featureName: 'bad-new',
            environment: 'development',
            enabled: true,
            variants: [{ name: 'a', weight: 1000, weightType: 'fix' }],
          },
        ],
      },
      '/body/featureEnvironments/0/variants',
    ],
  ];
  it.each(cases)('%s: 400 naming the item, and a full export unchanged', async (_, doc, path) => {
    const before = await exportOf(target);
    const last = await lastEventId(target);
    // A valid new flag next to the problem: all or nothing.
    const res = await importInto(target, doc);
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.name).toBe('ValidationError');
    expect(body.details.map((d: { path: string }) => d.path).some((p: string) => p.startsWith(path))).toBe(
      true,
    );
    expect(await exportOf(target)).toEqual(before);
    expect(await lastEventId(target)).toBe(last);
  });

  it('a valid document with one unknown reference writes nothing', async () => {
    const doc = await exportOf(source);
    const t = await startTestApp();
    try {
      const before = await exportOf(t);
      const broken = {
        ...doc,
        featureTags: [...doc.featureTags, { featureName: 'st-kill', tagType: 'missing', tagValue: 'xx' }],
      };
      const res = await importInto(t, broken);
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([
        {
          path: `/body/featureTags/${doc.featureTags.length}/tagType`,
          message: 'There is no tag type "missing" here or in tagTypes.',
        },
      ]);
      expect(await exportOf(t)).toEqual(before);
    } finally {
      await t.close();
    }
  });
});

describe('permissions', () => {
  it('401 without credentials, 403 for non-admins, 200/202 for Admins', async () => {
    const none = { authorization: undefined };
    expect((await target.send('GET', '/api/admin/state/export', undefined, none)).statusCode).toBe(401);
    expect((await target.send('POST', '/api/admin/state/import', { version: 4 }, none)).statusCode).toBe(401);
    for (const role of ['Editor', 'Viewer'] as const) {
      const user = await createUser(target, role);
      const headers = asUser(await login(target, user.username));
      expect((await target.send('GET', '/api/admin/state/export', undefined, headers)).statusCode).toBe(403);
      expect((await target.send('POST', '/api/admin/state/import', { version: 4 }, headers)).statusCode).toBe(
        403,
      );
    }
    const admin = await createUser(target, 'Admin');
    const headers = asUser(await login(target, admin.username));
    expect((await target.send('GET', '/api/admin/state/export', undefined, headers)).statusCode).toBe(200);
    expect((await target.send('POST', '/api/admin/state/import', { version: 4 }, headers)).statusCode).toBe(
      202,
    );
  });
});
