import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { buildConfiguration, transfer } from '../../../test/transfer.js';

/** POST /api/admin/features-batch/export: selections, contents, download, event, errors. */
let t: TestApp;
let x: ReturnType<typeof transfer>;
let names: Awaited<ReturnType<typeof buildConfiguration>>;
const NOW = new Date('2026-03-04T05:06:07Z');
beforeAll(async () => {
  t = await startTestApp({ now: () => NOW });
  x = transfer(t);
  names = await buildConfiguration(t, 'ex');
  const must = async (method: string, url: string, body?: unknown) => {
    const res = await t.send(method, url, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url} ${res.statusCode}: ${res.body}`);
  };
  await must('POST', '/api/admin/projects', { id: 'other', name: 'Other' });
  await must('POST', '/api/admin/projects/other/features', {
    name: 'ex-other',
    tags: [{ type: 'simple', value: 'ex-web' }],
  });
  await must('POST', '/api/admin/projects/default/features', {
    name: 'ex-archived',
    tags: [{ type: 'simple', value: 'ex-web' }],
  });
  await must('DELETE', '/api/admin/projects/default/features/ex-archived');
});
afterAll(() => t.close());

const flagNames = (doc: { features: { name: string }[] }) => doc.features.map((f) => f.name);

describe('selection', () => {
  it('by names: those that exist, archived ones included, in name order', async () => {
    const doc = await x.export({
      environment: 'development',
      features: [names.kill, 'ex-archived', 'no-such-flag', names.checkout],
    });
    expect(flagNames(doc)).toEqual(['ex-archived', names.checkout, names.kill]);
    expect(doc.features.find((f) => f.name === 'ex-archived')?.archived).toBe(true);
  });

  it('by tag: a value under any tag type, or exactly type:value; archived flags included; across projects', async () => {
    expect(flagNames(await x.export({ environment: 'development', tag: 'ex-web' }))).toEqual([
      'ex-archived',
      names.checkout,
      'ex-other',
    ]);
    expect(flagNames(await x.export({ environment: 'development', tag: 'simple:ex-web' }))).toEqual([
      'ex-archived',
      names.checkout,
      'ex-other',
    ]);
    expect(flagNames(await x.export({ environment: 'development', tag: 'payments' }))).toEqual([
      names.checkout,
    ]);
    // The tag wins over names and project, as in Unleash.
    expect(
      flagNames(
        await x.export({
          environment: 'development',
          tag: 'payments',
          features: [names.kill],
          project: 'other',
        }),
      ),
    ).toEqual([names.checkout]);
  });

  it('by project: its active flags; names win over the project', async () => {
    expect(flagNames(await x.export({ environment: 'development', project: 'other' }))).toEqual(['ex-other']);
    expect(flagNames(await x.export({ environment: 'development', project: 'default' }))).toEqual(
      Object.values(names).sort(),
    );
    expect(
      flagNames(await x.export({ environment: 'development', project: 'other', features: [names.kill] })),
    ).toEqual([names.kill]);
  });

  it('an empty names list selects like no list: the project, else every active flag', async () => {
    expect(flagNames(await x.export({ environment: 'development', project: 'other', features: [] }))).toEqual(
      ['ex-other'],
    );
    expect(flagNames(await x.export({ environment: 'development', features: [] }))).toEqual(
      [...Object.values(names), 'ex-other'].sort(),
    );
  });

  it('400 without any selection, 404 for an unknown environment or project', async () => {
    const none = await x.exportRaw({ environment: 'development' });
    expect(none.statusCode).toBe(400);
    expect(none.json().details).toEqual([
      { path: '/body', message: 'Select what to export: give `features` (names), `tag` or `project`.' },
    ]);
    const missing = await x.exportRaw({ features: [names.kill] });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details[0].path).toBe('/body/environment');
    const env = await x.exportRaw({ environment: 'no-such-env', features: [names.kill] });
    expect(env.statusCode).toBe(404);
    expect(env.json().message).toBe('The environment "no-such-env" does not exist.');
    const project = await x.exportRaw({ environment: 'development', project: 'no-such-project' });
    expect(project.statusCode).toBe(404);
  });
});

describe('contents', () => {
  it('strategies, on/off and variants of the environment, tags, context fields, segments, tag types, parents', async () => {
    const doc = await x.export({ environment: 'development', features: [names.checkout, names.child] });
    const checkout = (await api(t).getFlag('default', names.checkout)).json();
    const dev = checkout.environments.find((e: { name: string }) => e.name === 'development');
    expect(doc.featureStrategies).toEqual(
      dev.strategies
        .map((s: Record<string, unknown>) => ({
          name: s.name,
          id: s.id,
          featureName: names.checkout,
          title: s.title,
          parameters: s.parameters,
          constraints: s.constraints,
          variants: s.variants,
          sortOrder: s.sortOrder,
          disabled: s.disabled,
          segments: s.segments,
        }))
        .concat([expect.objectContaining({ featureName: names.child, name: 'flexibleRollout' })]),
    );
    expect(doc.featureEnvironments).toEqual([
      {
        enabled: true,
        featureName: names.checkout,
        environment: 'development',
        variants: dev.variants,
        name: names.checkout,
      },
      {
        enabled: true,
        featureName: names.child,
        environment: 'development',
        variants: [],
        name: names.child,
      },
    ]);
    expect(doc.featureTags).toEqual([
      { featureName: names.checkout, tagType: 'ex-team', tagValue: 'payments' },
      { featureName: names.checkout, tagType: 'simple', tagValue: 'ex-web' },
    ]);
    expect(doc.tagTypes).toEqual([
      { name: 'ex-team', description: 'Owning team', icon: null, color: '#123456' },
      { name: 'simple', description: 'Used to simplify filtering of features', icon: '#', color: null },
    ]);
    expect(doc.segments).toMatchObject([{ id: dev.strategies[0].segments[0], name: 'ex-beta' }]);
    // Context fields named by constraints, strategy stickiness and flag-variant stickiness/overrides.
    expect(doc.contextFields.map((c) => c.name)).toEqual(['appName', 'currentTime', 'ex-tier', 'userId']);
    expect(doc.contextFields.find((c) => c.name === 'ex-tier')).toEqual({
      name: 'ex-tier',
      description: 'Customer tier',
      stickiness: true,
      sortOrder: 5,
      legalValues: [{ value: 'gold', description: 'Pays most' }, { value: 'silver' }],
    });
    expect(doc.dependencies).toEqual([
      { feature: names.child, dependencies: [{ feature: names.checkout, enabled: true, variants: ['a'] }] },
    ]);
    expect(doc.links).toEqual([]);
  });

  it('another environment shows that environment only', async () => {
    const doc = await x.export({ environment: 'production', features: [names.checkout] });
    expect(doc.featureStrategies.map((s) => s.name)).toEqual(['default']);
    expect(doc.featureEnvironments).toEqual([
      {
        enabled: false,
        featureName: names.checkout,
        environment: 'production',
        variants: [],
        name: names.checkout,
      },
    ]);
    expect(doc.segments).toEqual([]);
  });
});

describe('download and event', () => {
  it('downloadFile: Content-Disposition attachment export-<date>.json; without it, none', async () => {
    const file = await x.exportRaw({
      environment: 'development',
      features: [names.kill],
      downloadFile: true,
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toBe('attachment; filename="export-2026-03-04.json"');
    expect(file.headers['content-type']).toMatch(/^application\/json/);
    const plain = await x.exportRaw({ environment: 'development', features: [names.kill] });
    expect(plain.headers['content-disposition']).toBeUndefined();
    expect(plain.json()).toEqual(file.json());
  });

  it('records features-exported with the selection and the number of flags', async () => {
    await x.export({ environment: 'production', project: 'other' });
    const event = await api(t).lastEvent('features-exported');
    expect(event).toMatchObject({
      created_by: 'admin',
      environment: 'production',
      project: 'other',
      data: { kind: 'project', project: 'other', environment: 'production', exported: 1 },
    });
  });
});
