import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { buildConfiguration, transfer } from '../../../test/transfer.js';

/**
 * POST /api/admin/state/import with `drop`, and the definitions a state document carries
 * (environments, projects, custom strategy types, segments) created or updated by the import.
 */

type StateDoc = {
  version: number;
  environments: { name: string; type: string; sortOrder: number; enabled: boolean }[];
  projects: { id: string; name: string; description: string | null }[];
  features: { name: string; project: string; description: string | null }[];
  strategies: { name: string; description: string | null; editable: boolean }[];
  featureStrategies: { id: string; featureName: string; environment: string; strategyName: string }[];
  featureEnvironments: { featureName: string; environment: string; enabled: boolean }[];
  segments: { id: number; name: string; description: string | null; project: string | null }[];
  featureStrategySegments: { featureStrategyId: string; segmentId: number }[];
  [key: string]: unknown;
};

let source: TestApp;
beforeAll(async () => {
  source = await startTestApp();
  await buildConfiguration(source, 'sd');
  await buildOwnDefinitions(source);
});
afterAll(() => source?.close());

/** A configuration outside the built-ins: environment, project, strategy type, project segment. */
async function buildOwnDefinitions(t: TestApp) {
  const { ok } = transfer(t);
  const send = (method: string, url: string, body?: unknown, status = 200) =>
    ok(t.send(method, url, body), status, `${method} ${url}`);
  await send('POST', '/api/admin/environments', { name: 'sd-staging', type: 'test', sortOrder: 5 }, 201);
  await send('POST', '/api/admin/projects', { id: 'sd-team', name: 'Team', description: 'Ours' }, 201);
  await send(
    'POST',
    '/api/admin/strategies',
    {
      name: 'sd-custom',
      title: 'Custom',
      description: 'A custom type',
      parameters: [{ name: 'region', type: 'list', description: 'Regions', required: true }],
    },
    201,
  );
  const segment = (
    await send(
      'POST',
      '/api/admin/segments',
      {
        name: 'sd-team-seg',
        description: 'Team users',
        project: 'sd-team',
        constraints: [{ contextName: 'userId', operator: 'STR_STARTS_WITH', values: ['team-'] }],
      },
      201,
    )
  ).json() as { id: number };
  await send('POST', '/api/admin/projects/sd-team/features', { name: 'sd-team-flag', description: 'T' });
  await send('POST', '/api/admin/projects/sd-team/features/sd-team-flag/environments/sd-staging/strategies', {
    name: 'sd-custom',
    parameters: { region: 'eu,us' },
    segments: [segment.id],
  });
  await send('POST', '/api/admin/projects/sd-team/features/sd-team-flag/environments/sd-staging/on');
}

async function exportOf(t: TestApp): Promise<StateDoc> {
  const res = await t.send('GET', '/api/admin/state/export');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const importInto = (t: TestApp, doc: unknown, query = '') =>
  t.send('POST', `/api/admin/state/import${query}`, doc);

/** Fresh instances for one test each, closed at the end of it. */
async function withFresh(count: number, run: (...apps: TestApp[]) => Promise<void>) {
  const apps = await Promise.all(Array.from({ length: count }, () => startTestApp()));
  try {
    await run(...apps);
  } finally {
    await Promise.all(apps.map((a) => a.close()));
  }
}

describe('state export → import with drop into a fresh instance → export', () => {
  it('gives the same document, segments and definitions included, with the drop and import events', async () => {
    const exported = await exportOf(source);
    expect(exported.segments.map((s) => s.name)).toEqual(['sd-beta', 'sd-team-seg']);
    expect(exported.featureStrategySegments).toHaveLength(2);
    expect(exported.environments.map((e) => e.name)).toContain('sd-staging');
    expect(exported.projects.map((p) => p.id)).toEqual(['default', 'sd-team']);
    expect(exported.strategies.find((s) => s.name === 'sd-custom')).toMatchObject({
      editable: true,
      description: 'A custom type',
    });

    await withFresh(1, async (t) => {
      const x = transfer(t);
      const before = await x.lastEventId();
      const res = await importInto(t, exported, '?drop=true');
      expect(res.statusCode, res.body).toBe(202);
      expect(await exportOf(t)).toEqual(exported);

      const types = (await x.eventsAfter(before)).map((e) => e.type);
      // The drops come first, in one transaction with the import; state-imported closes it.
      expect(types.slice(0, 8)).toEqual([
        'drop-features',
        'drop-feature-tags',
        'drop-tags',
        'drop-tag-types',
        'drop-strategies',
        'drop-projects',
        'drop-environments',
        'environment-import',
      ]);
      for (const type of [
        'project-import',
        'strategy-import',
        'segment-import',
        'tag-import',
        'feature-created',
      ]) {
        expect(types, type).toContain(type);
      }
      expect(types.at(-1)).toBe('state-imported');

      // The segment kept its id, the strategy uses it, the project got the environment it uses.
      const segments = (await t.send('GET', '/api/admin/segments')).json().segments;
      expect(segments.map((s: { id: number; name: string }) => [s.id, s.name])).toEqual(
        exported.segments.map((s) => [s.id, s.name]),
      );
      const envs = (await t.send('GET', '/api/admin/environments/project/sd-team')).json();
      expect(JSON.stringify(envs)).toContain('sd-staging');

      // Again with drop: everything is dropped and imported again, to the same result.
      expect((await importInto(t, exported, '?drop=1')).statusCode).toBe(202);
      expect(await exportOf(t)).toEqual(exported);
    });
  });
});

describe('drop', () => {
  it('deletes what exists of each listed kind, archived flags included; default stays', async () => {
    await withFresh(1, async (t) => {
      await buildConfiguration(t, 'old');
      await buildOwnDefinitions(t);
      const archived = await t.send('DELETE', '/api/admin/projects/default/features/old-kill');
      expect(archived.statusCode, archived.body).toBe(202);
      const doc = {
        version: 4,
        environments: [{ name: 'development', type: 'development', sortOrder: 2, enabled: true }],
        projects: [{ id: 'new-p', name: 'New', description: null }],
        features: [{ name: 'new-flag', project: 'new-p', type: 'release', description: 'N' }],
        strategies: [],
        featureEnvironments: [{ featureName: 'new-flag', environment: 'development', enabled: true }],
        featureStrategies: [{ featureName: 'new-flag', environment: 'development', strategyName: 'default' }],
        tagTypes: [{ name: 'new-type', description: null, icon: null, color: null }],
        tags: [{ type: 'new-type', value: 'new-value' }],
        featureTags: [{ featureName: 'new-flag', tagType: 'new-type', tagValue: 'new-value' }],
        segments: [],
      };
      const res = await importInto(t, doc, '?drop=true');
      expect(res.statusCode, res.body).toBe(202);
      const after = await exportOf(t);
      expect(after.features.map((f) => f.name)).toEqual(['new-flag']);
      expect(after.projects.map((p) => p.id)).toEqual(['default', 'new-p']);
      // production and sd-staging are gone; development is what the document says.
      expect(after.environments).toEqual([doc.environments[0]]);
      expect(after.strategies.filter((s) => s.editable)).toEqual([]);
      expect(after.segments).toEqual([]);
      expect(after.tagTypes).toEqual(doc.tagTypes);
      expect(after.tags).toEqual(doc.tags);
      expect(after.featureTags).toEqual(doc.featureTags);
      // The archived flag went too.
      expect((await t.send('GET', '/api/admin/archive/features')).json().features).toEqual([]);
      expect((await t.send('GET', '/api/admin/projects/default/features/old-kill')).statusCode).toBe(404);
      // The project got the environment its flag uses, not every enabled one.
      expect(after.featureEnvironments).toEqual([
        { featureName: 'new-flag', environment: 'development', enabled: true, variants: [] },
      ]);
    });
  });

  it('leaves the kinds the document does not list, and what they still use', async () => {
    await withFresh(1, async (t) => {
      await buildOwnDefinitions(t);
      const before = await exportOf(t);
      const x = transfer(t);
      const last = await x.lastEventId();
      // Only segments, strategy types and projects: the flag that uses them stays, so do they.
      const res = await importInto(
        t,
        { version: 4, segments: [], strategies: [], projects: [] },
        '?drop=true',
      );
      expect(res.statusCode, res.body).toBe(202);
      expect(await exportOf(t)).toEqual(before);
      expect((await x.eventsAfter(last)).map((e) => e.type)).toEqual([
        'drop-strategies',
        'drop-projects',
        'state-imported',
      ]);
    });
  });

  it('a problem anywhere in the document undoes the drops: the database is unchanged', async () => {
    await withFresh(1, async (t) => {
      await buildConfiguration(t, 'keep');
      await buildOwnDefinitions(t);
      expect((await t.send('DELETE', '/api/admin/projects/default/features/keep-kill')).statusCode).toBe(202);
      const x = transfer(t);
      const before = await exportOf(t);
      const archive = (await t.send('GET', '/api/admin/archive/features')).json();
      const last = await x.lastEventId();
      const doc = await exportOf(source);
      const broken = {
        ...doc,
        featureStrategies: doc.featureStrategies.map((s, i) =>
          i === Math.floor(doc.featureStrategies.length / 2)
            ? { ...s, constraints: [{ contextName: 'userId', operator: 'NOPE', values: ['a'] }] }
            : s,
        ),
      };
      const res = await importInto(t, broken, '?drop=true');
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([
        expect.objectContaining({
          path: `/body/featureStrategies/${Math.floor(doc.featureStrategies.length / 2)}/constraints/0/operator`,
        }),
      ]);
      expect(await exportOf(t)).toEqual(before);
      expect((await t.send('GET', '/api/admin/archive/features')).json()).toEqual(archive);
      expect(await x.lastEventId()).toBe(last);
    });
  });
});

describe('definitions in a state document, without drop', () => {
  const doc = {
    version: 4,
    environments: [{ name: 'qa', type: 'test', sortOrder: 7, enabled: true }],
    projects: [{ id: 'imported', name: 'Imported', description: 'From a file' }],
    strategies: [
      {
        name: 'by-region',
        displayName: 'By region',
        description: 'Regions',
        editable: true,
        deprecated: false,
        parameters: [{ name: 'regions', type: 'list', description: '', required: false }],
      },
      // Built-in: never changed by an import.
      { name: 'default', description: 'changed', editable: false, parameters: [] },
    ],
    segments: [
      {
        id: 41,
        name: 'eu-users',
        description: 'EU',
        project: 'imported',
        constraints: [{ contextName: 'region', operator: 'IN', values: ['eu'] }],
      },
    ],
    features: [{ name: 'imp-flag', project: 'imported', type: 'release' }],
    featureEnvironments: [{ featureName: 'imp-flag', environment: 'qa', enabled: true }],
    featureStrategies: [
      {
        id: 'imp-strategy',
        featureName: 'imp-flag',
        environment: 'qa',
        strategyName: 'by-region',
        parameters: { regions: 'eu' },
      },
    ],
    featureStrategySegments: [{ featureStrategyId: 'imp-strategy', segmentId: 41 }],
  };

  it('creates missing ones with *-import events; keep leaves them, keep=false updates them', async () => {
    await withFresh(1, async (t) => {
      const x = transfer(t);
      // A segment with the document's id already exists: the imported one gets a new id.
      const taken = await t.send('POST', '/api/admin/segments', { name: 'here-first', constraints: [] });
      expect(taken.statusCode).toBe(201);
      const takenId = taken.json().id;
      // The document's strategy refers to the document's segment, not to the one here with that id.
      const withTaken = {
        ...doc,
        segments: [{ ...doc.segments[0], id: takenId }],
        featureStrategySegments: [{ featureStrategyId: 'imp-strategy', segmentId: takenId }],
      };
      const res = await importInto(t, withTaken);
      expect(res.statusCode, res.body).toBe(202);

      const env = (await t.send('GET', '/api/admin/environments/qa')).json();
      expect(env).toMatchObject({ name: 'qa', type: 'test', sortOrder: 7, enabled: true });
      const strategy = (await t.send('GET', '/api/admin/strategies/by-region')).json();
      expect(strategy).toMatchObject({ title: 'By region', description: 'Regions', editable: true });
      expect((await t.send('GET', '/api/admin/strategies/default')).json().description).not.toBe('changed');
      const segments = (await t.send('GET', '/api/admin/segments')).json().segments as {
        id: number;
        name: string;
        project: string;
      }[];
      const imported = segments.find((s) => s.name === 'eu-users');
      expect(imported?.id).not.toBe(takenId);
      expect(imported?.project).toBe('imported');
      const flag = (await t.send('GET', '/api/admin/projects/imported/features/imp-flag')).json();
      const qa = flag.environments.find((e: { name: string }) => e.name === 'qa');
      expect(qa.enabled).toBe(true);
      expect(qa.strategies[0]).toMatchObject({ name: 'by-region', segments: [imported?.id] });
      const types = (await x.eventsAfter(0)).map((e) => e.type);
      for (const type of ['environment-import', 'project-import', 'strategy-import', 'segment-import']) {
        expect(types).toContain(type);
      }

      // Changed definitions: kept by default (nothing recorded), written with keep=false.
      const changed = {
        ...withTaken,
        environments: [{ ...doc.environments[0], sortOrder: 8 }],
        projects: [{ ...doc.projects[0], name: 'Renamed' }],
        strategies: [{ ...doc.strategies[0], description: 'Regions, changed' }],
        segments: [{ ...withTaken.segments[0], description: 'EU, changed' }],
      };
      const last = await x.lastEventId();
      expect((await importInto(t, changed)).statusCode).toBe(202);
      expect(await x.lastEventId()).toBe(last);
      expect((await t.send('GET', '/api/admin/environments/qa')).json().sortOrder).toBe(7);

      expect((await importInto(t, changed, '?keep=false')).statusCode).toBe(202);
      const events = await x.eventsAfter(last);
      expect(events.map((e) => e.type).sort()).toEqual([
        'environment-import',
        'project-import',
        'segment-import',
        'state-imported',
        'strategy-import',
      ]);
      expect(events.find((e) => e.type === 'project-import')).toMatchObject({
        data: { name: 'Renamed' },
        pre_data: { name: 'Imported' },
      });
      expect((await t.send('GET', '/api/admin/environments/qa')).json().sortOrder).toBe(8);
      expect((await t.send('GET', '/api/admin/strategies/by-region')).json().description).toBe(
        'Regions, changed',
      );
      const after = (await t.send('GET', '/api/admin/segments')).json().segments;
      expect(after.find((s: { name: string }) => s.name === 'eu-users').description).toBe('EU, changed');

      // The same document again: nothing changes, nothing is recorded, with or without keep.
      const again = await x.lastEventId();
      expect((await importInto(t, changed, '?keep=false')).statusCode).toBe(202);
      expect((await importInto(t, changed)).statusCode).toBe(202);
      expect(await x.lastEventId()).toBe(again);
    });
  });
});
