import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { buildConfiguration, type ExportDocument, transfer } from '../../../test/transfer.js';

/** POST /api/admin/features-batch/import: what it writes, the events, idempotence, all or nothing. */
let t: TestApp;
let x: ReturnType<typeof transfer>;
beforeAll(async () => {
  t = await startTestApp();
  x = transfer(t);
});
afterAll(() => t.close());

/** The export Unleash 8.2 answered (bench/../reference exchange 11, the first request). */
const UNLEASH_EXPORT = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/unleash-8.2-export.json', import.meta.url), 'utf8'),
) as ExportDocument;

const types = (events: { type: string }[]) => events.map((e) => e.type);

describe('an export made by Unleash 8', () => {
  it('imports unchanged: exporting it again gives the same document', async () => {
    // The segment is referenced by name; Unleash exports do not carry its definition.
    const segment = await t.send('POST', '/api/admin/segments', {
      name: 'anchor-beta-users',
      constraints: [],
    });
    expect(segment.json().id).toBe(1);
    const body = { project: 'default', environment: 'development', data: UNLEASH_EXPORT };
    expect((await x.validate(body)).json()).toMatchObject({ errors: [], warnings: [], permissions: [] });
    const res = await x.import(body);
    expect(res.statusCode).toBe(200);

    const again = await x.export({
      environment: 'development',
      features: ['anchor-release', 'anchor-experiment'],
      segmentDefinitions: false,
    });
    expect(again).toEqual({
      ...UNLEASH_EXPORT,
      // What differs, and why: the target's own `simple` tag type is kept (it has no colour here),
      // and strategies carry their sort order (Unleash 8.2 leaves it out of exports).
      featureStrategies: UNLEASH_EXPORT.featureStrategies.map((s) => ({ ...s, sortOrder: 0 })),
      tagTypes: [{ ...UNLEASH_EXPORT.tagTypes[0], color: null }],
    });

    // Validating the same document into production now warns as Unleash did (exchange 17).
    const intoProduction = await x.validate({ ...body, environment: 'production' });
    expect(intoProduction.json()).toMatchObject({
      errors: [],
      warnings: [
        {
          message: 'The following features already exist in this project and will be overwritten:',
          affectedItems: ['anchor-experiment', 'anchor-release'],
        },
      ],
      permissions: [],
    });
  });

  it('a second import of the same document changes nothing and records no event', async () => {
    const body = { project: 'default', environment: 'development', data: UNLEASH_EXPORT };
    const before = await x.snapshot();
    const last = await x.lastEventId();
    expect((await x.import(body)).statusCode).toBe(200);
    expect(await x.eventsAfter(last)).toEqual([]);
    expect(await x.snapshot()).toEqual(before);
  });
});

describe('importing into an empty project', () => {
  it('creates everything, one event per change, features-imported last', async () => {
    await t.send('POST', '/api/admin/projects', { id: 'fresh', name: 'Fresh' });
    const data = {
      features: [
        { name: 'fresh-a', type: 'operational', description: 'A', impressionData: true },
        { name: 'fresh-b', stale: true },
      ],
      featureStrategies: [
        { name: 'flexibleRollout', featureName: 'fresh-a', parameters: { rollout: '25' } },
        {
          name: 'default',
          featureName: 'fresh-a',
          constraints: [{ contextName: 'fresh-ctx', operator: 'IN', values: ['x'] }],
        },
      ],
      featureEnvironments: [
        {
          featureName: 'fresh-a',
          enabled: true,
          variants: [
            { name: 'v1', weight: 1 },
            { name: 'v2', weight: 1 },
          ],
        },
        { name: 'fresh-b', enabled: false },
      ],
      contextFields: [{ name: 'fresh-ctx', legalValues: [{ value: 'x' }] }],
      featureTags: [
        { featureName: 'fresh-a', tagType: 'fresh-type', tagValue: 'one' },
        { featureName: 'fresh-b', tagType: 'simple', tagValue: 'fresh-simple' },
      ],
      tagTypes: [{ name: 'fresh-type', description: 'Imported', color: '#000000' }],
      dependencies: [{ feature: 'fresh-b', dependencies: [{ feature: 'fresh-a', enabled: true }] }],
    };
    const last = await x.lastEventId();
    const res = await x.import({ project: 'fresh', environment: 'production', data });
    expect(res.statusCode).toBe(200);
    const events = await x.eventsAfter(last);
    expect(types(events)).toEqual([
      'context-field-created',
      'tag-type-created',
      'feature-created',
      'feature-created',
      'feature-strategy-add',
      'feature-strategy-add',
      'feature-environment-variants-updated',
      'feature-environment-enabled',
      'feature-dependency-added',
      'feature-import',
      'feature-import',
      'features-imported',
    ]);
    // New flags get their tags as a flag created with tags does: its feature-created carries them.
    expect(events.filter((e) => e.type === 'feature-created')).toMatchObject([
      { feature_name: 'fresh-a', tags: [{ type: 'fresh-type', value: 'one' }] },
      { feature_name: 'fresh-b', tags: [{ type: 'simple', value: 'fresh-simple' }] },
    ]);
    expect(events.at(-1)).toMatchObject({
      feature_name: null,
      data: { project: 'fresh', environment: 'production' },
    });

    const flag = (await api(t).getFlag('fresh', 'fresh-a')).json();
    expect(flag).toMatchObject({ type: 'operational', description: 'A', impressionData: true, stale: false });
    expect(flag.lifecycle.stage).toBe('live');
    // The stage kept on the flag's row (what search filters on) agrees with the stage rows.
    const stages = await t.database.session((run) =>
      run("SELECT name, lifecycle_stage FROM features WHERE name LIKE 'fresh-%' ORDER BY name"),
    );
    expect(stages).toEqual([
      { name: 'fresh-a', lifecycle_stage: 'live' },
      { name: 'fresh-b', lifecycle_stage: 'initial' },
    ]);
    const production = flag.environments.find((e: { name: string }) => e.name === 'production');
    expect(production.enabled).toBe(true);
    expect(production.variants.map((v: { name: string; weight: number }) => [v.name, v.weight])).toEqual([
      ['v1', 500],
      ['v2', 500],
    ]);
    expect(
      production.strategies.map((s: { name: string; parameters: unknown }) => [s.name, s.parameters]),
    ).toEqual([
      ['flexibleRollout', { rollout: '25', groupId: 'fresh-a', stickiness: 'default' }],
      ['default', {}],
    ]);
    // The other environment is left alone.
    expect(flag.environments.find((e: { name: string }) => e.name === 'development')).toMatchObject({
      enabled: false,
      strategies: [],
    });
    const b = (await api(t).getFlag('fresh', 'fresh-b')).json();
    expect(b).toMatchObject({ stale: true, dependencies: [{ feature: 'fresh-a', enabled: true }] });
    expect(b.tags).toEqual([{ type: 'simple', value: 'fresh-simple' }]);
    expect((await t.send('GET', '/api/admin/context/fresh-ctx')).json().legalValues).toEqual([
      { value: 'x' },
    ]);
  });

  it('takes the document as YAML', async () => {
    await t.send('POST', '/api/admin/projects', { id: 'yaml', name: 'Yaml' });
    const body = {
      project: 'yaml',
      environment: 'development',
      data: {
        features: [{ name: 'yaml-imported', description: 'from YAML' }],
        featureStrategies: [{ name: 'default', featureName: 'yaml-imported' }],
        featureEnvironments: [{ featureName: 'yaml-imported', enabled: true }],
        tagTypes: [],
      },
    };
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/features-batch/import',
      payload: stringify(body),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(res.statusCode).toBe(200);
    const flag = (await api(t).getFlag('yaml', 'yaml-imported')).json();
    expect(flag.description).toBe('from YAML');
    expect(flag.environments.find((e: { name: string }) => e.name === 'development').enabled).toBe(true);
  });

  it('a person with the permissions may import; the events name them', async () => {
    const editor = await createUser(t, 'Editor');
    const headers = asUser(await login(t, editor.username));
    const last = await x.lastEventId();
    const res = await x.import(
      {
        project: 'default',
        environment: 'development',
        data: { features: [{ name: 'by-editor' }], featureStrategies: [], tagTypes: [] },
      },
      headers,
    );
    expect(res.statusCode).toBe(200);
    const rows = await t.database.session((run) =>
      run('SELECT type, created_by FROM events WHERE id > $1 ORDER BY id', [last]),
    );
    expect(rows).toEqual([
      { type: 'feature-created', created_by: editor.username },
      { type: 'feature-import', created_by: editor.username },
      { type: 'features-imported', created_by: editor.username },
    ]);
  });
});

describe('importing over existing flags (copying development to production)', () => {
  it('makes production what the document says, then a second import changes nothing', async () => {
    const names = await buildConfiguration(t, 'cp');
    const source = await x.export({ environment: 'development', features: Object.values(names) });
    const before = await x.export({ environment: 'production', features: Object.values(names) });
    expect(before.featureStrategies.map((s) => s.featureName)).toEqual([names.checkout]);

    const body = { project: 'default', environment: 'production', data: source };
    const warnings = (await x.validate(body)).json().warnings;
    expect(warnings).toEqual([
      {
        message: 'The following features already exist in this project and will be overwritten:',
        // The kill switch is as the document says already: only the flags that change are listed.
        affectedItems: Object.values(names)
          .filter((n) => n !== names.kill)
          .sort(),
      },
    ]);
    const last = await x.lastEventId();
    expect((await x.import(body)).statusCode).toBe(200);
    const events = await x.eventsAfter(last);
    expect(types(events)).toEqual([
      'feature-strategy-remove',
      ...source.featureStrategies.map(() => 'feature-strategy-add'),
      'feature-environment-variants-updated',
      'feature-environment-enabled',
      'feature-environment-enabled',
      ...Object.values(names)
        .filter((n) => n !== names.kill)
        .sort()
        .map(() => 'feature-import'),
      'features-imported',
    ]);

    const after = await x.export({ environment: 'production', features: Object.values(names) });
    // Production now holds development's configuration; the strategies got ids of their own,
    // as development's are taken.
    const withoutIds = (doc: ExportDocument) => ({
      ...doc,
      featureStrategies: doc.featureStrategies.map(({ id: _, ...s }) => s),
      featureEnvironments: doc.featureEnvironments.map(({ environment: _, ...e }) => e),
    });
    expect(withoutIds(after)).toEqual(withoutIds(source));
    const sourceIds = new Set(source.featureStrategies.map((s) => s.id));
    expect(after.featureStrategies.some((s) => sourceIds.has(s.id))).toBe(false);
    // Development is untouched.
    expect(await x.export({ environment: 'development', features: Object.values(names) })).toEqual(source);

    const again = await x.lastEventId();
    expect((await x.import(body)).statusCode).toBe(200);
    expect(await x.eventsAfter(again)).toEqual([]);
    expect(await x.export({ environment: 'production', features: Object.values(names) })).toEqual(after);
  });

  it('updates metadata, tags, strategies, on/off, variants and parents, recording each change', async () => {
    const a = api(t);
    await a.createFlag('default', { name: 'ow-parent' });
    await a.createFlag('default', {
      name: 'ow-flag',
      description: 'old',
      tags: [{ type: 'simple', value: 'old-tag' }],
    });
    await t.send('POST', '/api/admin/projects/default/features/ow-flag/dependencies', {
      feature: 'ow-parent',
    });
    await t.send('POST', '/api/admin/projects/default/features/ow-flag/environments/development/on');
    const [kept] = (await x.export({ environment: 'development', features: ['ow-flag'] })).featureStrategies;
    const last = await x.lastEventId();
    const res = await x.import({
      project: 'default',
      environment: 'development',
      data: {
        features: [{ name: 'ow-flag', type: 'experiment', description: 'new', stale: true }],
        featureStrategies: [
          { ...kept, parameters: { ...(kept?.parameters as object), rollout: '5' } },
          { name: 'default', featureName: 'ow-flag' },
        ],
        featureEnvironments: [
          { featureName: 'ow-flag', enabled: false, variants: [{ name: 'only', weight: 1000 }] },
        ],
        featureTags: [{ featureName: 'ow-flag', tagType: 'simple', tagValue: 'new-tag' }],
        tagTypes: [],
        dependencies: [],
      },
    });
    expect(res.statusCode).toBe(200);
    const events = await x.eventsAfter(last);
    expect(types(events)).toEqual([
      'feature-metadata-updated',
      'feature-stale-on',
      'tag-created',
      'feature-untagged',
      'feature-tagged',
      'feature-strategy-update',
      'feature-strategy-add',
      'feature-environment-variants-updated',
      'feature-environment-disabled',
      'feature-dependency-removed',
      'feature-import',
      'features-imported',
    ]);
    expect(events[0]).toMatchObject({
      data: { type: 'experiment', description: 'new' },
      pre_data: { type: 'release', description: 'old' },
    });
    const flag = (await a.getFlag('default', 'ow-flag')).json();
    expect(flag).toMatchObject({
      type: 'experiment',
      stale: true,
      dependencies: [],
      tags: [{ type: 'simple', value: 'new-tag' }],
    });
    const dev = flag.environments.find((e: { name: string }) => e.name === 'development');
    expect(dev.enabled).toBe(false);
    expect(
      dev.strategies.map((s: { id: string; parameters: { rollout?: string } }) => [
        s.id === kept?.id,
        s.parameters.rollout,
      ]),
    ).toEqual([
      [true, '5'],
      [false, undefined],
    ]);
  });
});

describe('a failed import leaves no trace', () => {
  it('one bad strategy among many flags: 400, and a full export is unchanged', async () => {
    const features = Array.from({ length: 50 }, (_, i) => ({ name: `bulk-${i}` }));
    const data = {
      features: [...features, { name: 'anchor-release', description: 'would be overwritten' }],
      featureStrategies: [
        ...features.map((f) => ({ name: 'default', featureName: f.name })),
        {
          name: 'flexibleRollout',
          featureName: 'bulk-49',
          constraints: [{ contextName: 'x', operator: 'NUM_EQ', value: 'ten' }],
        },
      ],
      featureTags: features.map((f) => ({ featureName: f.name, tagType: 'bulk-type', tagValue: 'bulk' })),
      tagTypes: [{ name: 'bulk-type' }],
      contextFields: [{ name: 'bulk-field' }],
    };
    const body = { project: 'default', environment: 'development', data };
    const before = await x.snapshot();
    const last = await x.lastEventId();
    const res = await x.import(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual((await x.validate(body)).json().errors);
    expect(res.json().details).toEqual([
      {
        message: 'The following strategies have invalid constraints:',
        affectedItems: [
          'featureStrategies[50] (bulk-49, flexibleRollout): The NUM_EQ value "ten" must be a number.',
        ],
      },
    ]);
    expect(await x.eventsAfter(last)).toEqual([]);
    expect(await x.snapshot()).toEqual(before);
  });

  it('a failure while writing (a NUL character the database refuses) rolls everything back', async () => {
    const before = await x.snapshot();
    const last = await x.lastEventId();
    const res = await x.import({
      project: 'default',
      environment: 'development',
      data: {
        features: [{ name: 'nul-a' }, { name: 'nul-b', description: 'bad\u0000text' }],
        featureStrategies: [{ name: 'default', featureName: 'nul-a' }],
        contextFields: [{ name: 'nul-field' }],
        tagTypes: [{ name: 'nul-type' }],
        featureTags: [{ featureName: 'nul-a', tagType: 'nul-type', tagValue: 'vv' }],
      },
    });
    expect(res.statusCode).toBe(400);
    // Refused by the database while writing the flags, after context field and tag type were written.
    expect(res.json()).toMatchObject({
      name: 'ValidationError',
      message: 'Strings may not contain NUL characters',
    });
    expect(await x.eventsAfter(last)).toEqual([]);
    expect(await x.snapshot()).toEqual(before);
  });
});
