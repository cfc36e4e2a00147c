import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { buildConfiguration, type ExportDocument, transfer } from '../../../test/transfer.js';

/**
 * Round trip: a configuration built through the API in one instance, exported, imported into a
 * fresh instance and exported there again gives the same document, and the document is the golden
 * file (strategy ids, random per run, replaced by their position). UPDATE_GOLDEN=1 rewrites it.
 */
const GOLDEN = new URL('../../../test/golden/transfer-roundtrip.json', import.meta.url);

let source: TestApp;
let target: TestApp;
beforeAll(async () => {
  [source, target] = await Promise.all([startTestApp(), startTestApp()]);
});
afterAll(() => Promise.all([source?.close(), target?.close()]));

/** The document with each strategy id replaced by `strategy-<n>` in order of appearance. */
function withStableIds(doc: ExportDocument): ExportDocument {
  const ids = new Map(doc.featureStrategies.map((s, i) => [s.id, `strategy-${i}`]));
  return {
    ...doc,
    featureStrategies: doc.featureStrategies.map((s) => ({ ...s, id: ids.get(s.id) as string })),
  };
}

describe('export → import into an empty instance → export', () => {
  it('gives the same document, the golden one', async () => {
    await buildConfiguration(source, 'rt');
    // Links: two on one flag (one without a title), in the order they were added.
    for (const [flag, link] of [
      ['rt-checkout', { url: 'https://example.com/issues/1', title: 'Rollout issue' }],
      ['rt-checkout', { url: 'example.com/dashboards/checkout' }],
      ['rt-kill', { url: 'https://example.com/runbook', title: 'Runbook' }],
    ] as const) {
      const res = await source.send('POST', `/api/admin/projects/default/features/${flag}/link`, link);
      expect(res.statusCode, flag).toBeLessThan(300);
    }
    const query = { environment: 'development', project: 'default' };
    const exported = await transfer(source).export(query);
    expect(exported.features.map((f) => f.name)).toEqual([
      'rt-checkout',
      'rt-child',
      'rt-experiment',
      'rt-kill',
    ]);
    expect(exported.links).toEqual([
      {
        feature: 'rt-checkout',
        links: [
          { url: 'https://example.com/issues/1', title: 'Rollout issue' },
          { url: 'https://example.com/dashboards/checkout', title: null },
        ],
      },
      { feature: 'rt-kill', links: [{ url: 'https://example.com/runbook', title: 'Runbook' }] },
    ]);

    // Segments are not exported with their constraints: the target has its own of the same name.
    const segment = await target.send('POST', '/api/admin/segments', {
      name: 'rt-beta',
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }],
    });
    expect(segment.statusCode).toBe(201);
    const body = { project: 'default', environment: 'development', data: exported };
    const validation = await transfer(target).validate(body);
    expect(validation.json()).toMatchObject({ errors: [], warnings: [], permissions: [] });
    const last = await transfer(target).lastEventId();
    const imported = await transfer(target).import(body);
    expect(imported.statusCode).toBe(200);
    expect(imported.body).toBe('');
    const linkEvents = (await transfer(target).eventsAfter(last)).filter((e) =>
      e.type.startsWith('feature-link'),
    );
    expect(linkEvents.map((e) => [e.type, e.feature_name, (e.data as { url: string }).url])).toEqual([
      ['feature-link-added', 'rt-checkout', 'https://example.com/issues/1'],
      ['feature-link-added', 'rt-checkout', 'https://example.com/dashboards/checkout'],
      ['feature-link-added', 'rt-kill', 'https://example.com/runbook'],
    ]);
    // The flag shows the imported links as the source's flag shows them (ids aside).
    const links = async (t: TestApp) =>
      (
        (await t.send('GET', '/api/admin/projects/default/features/rt-checkout')).json().links as {
          url: string;
          title: string | null;
        }[]
      ).map((l) => ({ url: l.url, title: l.title }));
    expect(await links(target)).toEqual(await links(source));

    const again = await transfer(target).export(query);
    expect(again).toEqual(exported);
    // Key order too: the two documents are the same text.
    expect(JSON.stringify(again)).toBe(JSON.stringify(exported));

    // The golden file is compared as data (Biome formats it as it formats any JSON file).
    const stable = withStableIds(again);
    if (process.env.UPDATE_GOLDEN === '1') {
      writeFileSync(GOLDEN, `${JSON.stringify(stable, null, 2)}\n`);
    }
    expect(stable).toEqual(JSON.parse(readFileSync(GOLDEN, 'utf8')));

    // A second import of the same document changes nothing and records nothing.
    const before = await transfer(target).lastEventId();
    expect((await transfer(target).import(body)).statusCode).toBe(200);
    expect(await transfer(target).eventsAfter(before)).toEqual([]);
  });

  it('importing changed links replaces them, recording only the changes', async () => {
    const query = { environment: 'development', project: 'default' };
    const doc = await transfer(target).export(query);
    const changed = {
      ...doc,
      links: [
        {
          feature: 'rt-checkout',
          links: [
            { url: 'https://example.com/issues/1', title: 'Rollout issue' },
            { url: 'https://example.com/issues/2', title: 'Follow-up' },
          ],
        },
      ],
    };
    const last = await transfer(target).lastEventId();
    const res = await transfer(target).import({
      project: 'default',
      environment: 'development',
      data: changed,
    });
    expect(res.statusCode).toBe(200);
    const events = await transfer(target).eventsAfter(last);
    expect(
      events.map((e) => [e.type, e.feature_name, ((e.data ?? e.pre_data) as { url?: string } | null)?.url]),
    ).toEqual([
      ['feature-link-removed', 'rt-checkout', 'https://example.com/dashboards/checkout'],
      ['feature-link-removed', 'rt-kill', 'https://example.com/runbook'],
      ['feature-link-added', 'rt-checkout', 'https://example.com/issues/2'],
      ['feature-import', 'rt-checkout', undefined],
      ['feature-import', 'rt-kill', undefined],
      ['features-imported', null, undefined],
    ]);
    expect((await transfer(target).export(query)).links).toEqual(changed.links);

    // A document without `links` leaves the flags' links as they are.
    const { links: _, ...withoutLinks } = changed;
    const before = await transfer(target).lastEventId();
    const again = await transfer(target).import({
      project: 'default',
      environment: 'development',
      data: withoutLinks,
    });
    expect(again.statusCode).toBe(200);
    expect(await transfer(target).eventsAfter(before)).toEqual([]);
    expect((await transfer(target).export(query)).links).toEqual(changed.links);
  });

  it('the imported flags behave the same for SDKs in the imported environment', async () => {
    const read = async (t: TestApp) => {
      const res = await t.send('POST', '/api/admin/playground', {
        environment: 'development',
        projects: ['default'],
        context: { appName: 'web', userId: 'u1', 'rt-tier': 'gold', appVersion: '2.0.0' },
      });
      expect(res.statusCode).toBe(200);
      return (res.json().features as { name: string; isEnabled: boolean; variant: unknown }[])
        .filter((f) => f.name.startsWith('rt-'))
        .map((f) => ({ name: f.name, isEnabled: f.isEnabled, variant: f.variant }));
    };
    expect(await read(target)).toEqual(await read(source));
  });
});

describe('export → import into an instance without the segment', () => {
  it('creates the segment from its definition; the same file again changes nothing', async () => {
    const [from, into] = await Promise.all([startTestApp(), startTestApp()]);
    try {
      const adults = [{ contextName: 'age', operator: 'NUM_GTE', values: [], value: '18' }];
      const segment = await from.send('POST', '/api/admin/segments', { name: 'adults', constraints: adults });
      expect(segment.statusCode).toBe(201);
      expect(
        (await from.send('POST', '/api/admin/projects/default/features', { name: 'seg-moved' })).statusCode,
      ).toBe(200);
      const strategy = await from.send(
        'POST',
        '/api/admin/projects/default/features/seg-moved/environments/development/strategies',
        { name: 'default', segments: [segment.json().id] },
      );
      expect(strategy.statusCode).toBe(200);
      const exported = await transfer(from).export({ environment: 'development', features: ['seg-moved'] });
      const body = { project: 'default', environment: 'development', data: exported };

      const validation = (await transfer(into).validate(body)).json();
      expect(validation.errors).toEqual([]);
      expect(validation.warnings).toEqual([
        {
          message: 'The following segments do not exist here and will be created:',
          affectedItems: ['adults'],
        },
      ]);
      const last = await transfer(into).lastEventId();
      expect((await transfer(into).import(body)).statusCode).toBe(200);
      const types = (await transfer(into).eventsAfter(last)).map((e) => e.type);
      expect(types[0]).toBe('segment-created');
      expect(types.slice(-2)).toEqual(['feature-import', 'features-imported']);
      const created = (await into.send('GET', '/api/admin/segments')).json().segments;
      expect(created).toMatchObject([{ name: 'adults', constraints: adults }]);
      expect(await transfer(into).export({ environment: 'development', features: ['seg-moved'] })).toEqual({
        ...exported,
        featureStrategies: exported.featureStrategies.map((s) => ({ ...s, segments: [created[0].id] })),
        segments: exported.segments.map((s) => ({ ...s, id: created[0].id })),
      });

      // The same file again: nothing to change, nothing changed, nothing recorded.
      expect((await transfer(into).validate(body)).json()).toEqual({
        errors: [],
        warnings: [],
        permissions: [],
        changes: 0,
      });
      const again = await transfer(into).lastEventId();
      expect((await transfer(into).import(body)).statusCode).toBe(200);
      expect(await transfer(into).eventsAfter(again)).toEqual([]);
    } finally {
      await Promise.all([from.close(), into.close()]);
    }
  });
});
