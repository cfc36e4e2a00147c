import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { PlaygroundResponse } from './playground.schemas.js';

let t: TestApp;
let sql: ReturnType<typeof configSql>;
let a: ReturnType<typeof api>;
const project = uniqueName('pg-proj');
let rollout: string;
let segmented: string;
let segmentId: number;
let strategyId: string;

beforeAll(async () => {
  t = await startTestApp({ config: { PLAYGROUND_EVALUATION_LIMIT: 50 } });
  sql = configSql(t);
  a = api(t);
  await t.database.session(async (run) => {
    await run('INSERT INTO projects (id, name) VALUES ($1, $1)', [project]);
    await run(`INSERT INTO project_environments (project_id, environment_name) VALUES ($1, 'development')`, [
      project,
    ]);
  });
  rollout = uniqueName('rollout');
  await a.createFlag(project, { name: rollout });
  await sql.enable(rollout, 'development');
  strategyId = await sql.addStrategy(rollout, 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default', groupId: rollout },
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
  });
  await sql.setVariants(rollout, 'development', [
    {
      name: 'blue',
      weight: 1000,
      weightType: 'variable',
      stickiness: 'default',
      payload: { type: 'string', value: 'b' },
    },
  ]);
  segmented = uniqueName('segmented');
  await a.createFlag(project, { name: segmented });
  await sql.enable(segmented, 'development');
  segmentId = await sql.addSegment(uniqueName('beta'), [
    { contextName: 'userId', operator: 'IN', values: ['u1'] },
  ]);
  await sql.addStrategy(segmented, 'development', { name: 'default', segments: [segmentId] });
});
afterAll(() => t.close());

const playground = (body: unknown, headers: Record<string, string | undefined> = {}) =>
  t.request({ method: 'POST', url: '/api/admin/playground', payload: body as object, headers });
const advanced = (body: unknown) =>
  t.request({ method: 'POST', url: '/api/admin/playground/advanced', payload: body as object });

type Feature = { name: string; [key: string]: unknown };
const byName = (features: Feature[], name: string) =>
  features.find((f) => f.name === name) as Record<string, any>;

describe('POST /api/admin/playground', () => {
  it('evaluates every flag of the projects with strategy, constraint and segment detail', async () => {
    const res = await playground({
      environment: 'development',
      projects: [project],
      context: { appName: 'web', userId: 'u1' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    const body = res.json();
    expect(body.input).toEqual({
      environment: 'development',
      projects: [project],
      context: { appName: 'web', userId: 'u1' },
    });
    expect(body.features.map((f: Feature) => f.name).sort()).toEqual([rollout, segmented].sort());
    const r = byName(body.features, rollout);
    expect(r).toMatchObject({
      projectId: project,
      isEnabled: true,
      isEnabledInCurrentEnvironment: true,
      hasUnsatisfiedDependency: false,
      feature_enabled: true,
      featureEnabled: true,
      variant: {
        name: 'blue',
        enabled: true,
        payload: { type: 'string', value: 'b' },
        feature_enabled: true,
      },
      strategies: { result: true },
    });
    expect(r.strategies.data[0]).toMatchObject({
      name: 'flexibleRollout',
      id: strategyId,
      disabled: false,
      parameters: { rollout: '100' },
      result: { enabled: true, evaluationStatus: 'complete' },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'], result: true }],
      segments: [],
      links: {
        edit: `/projects/${project}/features/${rollout}/strategies/edit?environmentId=development&strategyId=${strategyId}`,
      },
    });
    expect(byName(body.features, segmented).strategies.data[0].segments).toEqual([
      expect.objectContaining({ id: segmentId, result: true }),
    ]);
  });

  it('reports failing constraints and segments and the disabled variant', async () => {
    const res = await playground({
      environment: 'development',
      projects: [project],
      context: { appName: 'app', userId: 'u2' },
    });
    const r = byName(res.json().features, rollout);
    expect(r).toMatchObject({
      isEnabled: false,
      variant: { name: 'disabled', enabled: false, feature_enabled: false },
    });
    expect(r.strategies.data[0].constraints[0].result).toBe(false);
    expect(byName(res.json().features, segmented).strategies.data[0].segments[0].result).toBe(false);
  });

  it('answers exactly the fields and types its response schema declares', async () => {
    // The answer is JSON text made by the service, not by the schema's serialiser, which dropped
    // anything undeclared: the engine's objects must not leak more (variants, segments included).
    const titled = uniqueName('titled');
    await a.createFlag(project, { name: titled });
    await sql.enable(titled, 'development');
    const strategies = `/api/admin/projects/${project}/features/${titled}/environments/development/strategies`;
    for (const disabled of [false, true]) {
      const added = await t.send('POST', strategies, {
        name: 'flexibleRollout',
        title: 'Everyone',
        disabled,
        parameters: { rollout: '100', stickiness: 'default', groupId: titled },
        constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'], caseInsensitive: true }],
        variants: [
          {
            name: 'v1',
            weight: 1000,
            weightType: 'variable',
            stickiness: 'default',
            payload: { type: 'json', value: '{"a":1}' },
          },
        ],
        segments: [segmentId],
      });
      expect(added.statusCode, added.body).toBe(200);
    }
    for (const userId of ['u1', 'u2']) {
      const res = await playground({
        environment: 'development',
        projects: [project],
        context: { appName: 'web', userId },
      });
      const body = res.json();
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect([...Value.Errors(PlaygroundResponse, body)]).toEqual([]);
      expect(Value.Clean(PlaygroundResponse, structuredClone(body))).toEqual(body);
      expect(byName(body.features, titled).strategies.data[0]).toMatchObject({ title: 'Everyone' });
    }
    const chosen = byName(
      (
        await playground({
          environment: 'development',
          projects: [project],
          context: { appName: 'web', userId: 'u1' },
        })
      ).json().features,
      titled,
    );
    expect(chosen.variant).toMatchObject({ name: 'v1', payload: { type: 'json', value: '{"a":1}' } });
  });

  it('answers for an unknown environment with every flag off there', async () => {
    const res = await playground({
      environment: 'nowhere',
      projects: [project],
      context: { appName: 'web' },
    });
    expect(res.statusCode).toBe(200);
    for (const f of res.json().features) {
      expect(f).toMatchObject({ isEnabledInCurrentEnvironment: false, isEnabled: false });
    }
  });

  it('selects projects: a list, "*" or none', async () => {
    const other = await playground({
      environment: 'development',
      projects: ['default'],
      context: { appName: 'web' },
    });
    expect(other.json().features.some((f: Feature) => f.name === rollout)).toBe(false);
    for (const projects of ['*', undefined]) {
      const all = await playground({ environment: 'development', projects, context: { appName: 'web' } });
      expect(all.json().features.some((f: Feature) => f.name === rollout)).toBe(true);
    }
  });

  it('sees a change made just before (reads its own writes)', async () => {
    const name = uniqueName('fresh');
    await a.createFlag(project, { name });
    const res = await playground({
      environment: 'development',
      projects: [project],
      context: { appName: 'web' },
    });
    expect(byName(res.json().features, name)).toMatchObject({
      isEnabled: false,
      isEnabledInCurrentEnvironment: false,
    });
  });

  it.each([
    ['no context', { environment: 'development' }, '/body/context'],
    ['no appName', { environment: 'development', context: {} }, '/body/context/appName'],
    ['an empty appName', { environment: 'development', context: { appName: '' } }, '/body/context/appName'],
    [
      'a non-string property',
      { environment: 'development', context: { appName: 'a', properties: { n: 1 } } },
      '/body/context/properties/n',
    ],
    [
      'a bad currentTime',
      { environment: 'development', context: { appName: 'a', currentTime: 'soon' } },
      '/body/context/currentTime',
    ],
    [
      'a numeric userId',
      { environment: 'development', context: { appName: 'a', userId: 7 } },
      '/body/context/userId',
    ],
    [
      'an environment array',
      { environment: ['development'], context: { appName: 'a' } },
      '/body/environment',
    ],
    [
      'projects as another string',
      { environment: 'development', projects: 'all', context: { appName: 'a' } },
      '/body/projects',
    ],
  ])('answers 400 for %s', async (_label, body, path) => {
    const res = await playground(body);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('answers 401 without a token', async () => {
    const res = await playground(
      { environment: 'development', context: { appName: 'a' } },
      { authorization: undefined },
    );
    expect(res.statusCode).toBe(401);
  });
});

describe('POST /api/admin/playground/advanced', () => {
  it('evaluates the cartesian product of comma-separated values per environment', async () => {
    const res = await advanced({
      environments: ['development', 'production'],
      projects: [project],
      context: { appName: 'web', userId: 'u1,u2', properties: { region: 'eu,us' }, extra: 5 },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.warnings).toEqual({ invalidContextProperties: ['extra'] });
    const seg = byName(body.features, segmented);
    expect(seg.projectId).toBe(project);
    expect(Object.keys(seg.environments).sort()).toEqual(['development', 'production']);
    const dev = seg.environments.development as Record<string, any>[];
    expect(dev).toHaveLength(4);
    expect(dev.map((e) => `${e.context.userId}/${e.context.region}`).sort()).toEqual([
      'u1/eu',
      'u1/us',
      'u2/eu',
      'u2/us',
    ]);
    for (const entry of dev) {
      expect(entry).toMatchObject({ name: segmented, environment: 'development', projectId: project });
      expect(entry.isEnabled).toBe(entry.context.userId === 'u1');
      expect(entry.context).not.toHaveProperty('properties');
    }
    expect(
      seg.environments.production.every(
        (e: { isEnabledInCurrentEnvironment: boolean }) => !e.isEnabledInCurrentEnvironment,
      ),
    ).toBe(true);
  });

  it('reports each flag, environment and context exactly as the single playground does', async () => {
    // The advanced answer is written from pre-serialised pieces (report-json.ts): its text must be
    // the single playground's report for the same environment and context, field for field and in
    // the same order, plus `environment` and `context` in place of `featureEnabled`.
    const rich = uniqueName('rich');
    await a.createFlag(project, { name: rich });
    await sql.enable(rich, 'development');
    const strategies = `/api/admin/projects/${project}/features/${rich}/environments/development/strategies`;
    const variants = [
      {
        name: 'v1',
        weight: 500,
        weightType: 'variable',
        stickiness: 'default',
        payload: { type: 'json', value: '{"a":1}' },
      },
      { name: 'v2', weight: 500, weightType: 'variable', stickiness: 'default' },
    ];
    const bodies = [
      {
        name: 'flexibleRollout',
        title: 'Old',
        disabled: true,
        parameters: { rollout: '100', stickiness: 'default', groupId: rich },
      },
      {
        name: 'flexibleRollout',
        title: '',
        parameters: { rollout: '100', stickiness: 'default', groupId: rich },
        constraints: [
          { contextName: 'userId', operator: 'IN', values: ['U1'], caseInsensitive: true },
          { contextName: 'region', operator: 'STR_CONTAINS', values: ['e"u'], inverted: true },
          { contextName: 'version', operator: 'SEMVER_GT', value: '1.0.0' },
        ],
        segments: [segmentId],
        variants,
      },
      {
        name: 'applicationHostname',
        parameters: { hostNames: 'hü' },
        constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
      },
      { name: 'userWithId', parameters: { userIds: 'u2' } },
    ];
    for (const body of bodies) {
      const added = await t.send('POST', strategies, body);
      expect(added.statusCode, added.body).toBe(200);
    }
    await sql.setVariants(rich, 'development', variants);
    const context = { appName: 'web', userId: 'u1,u2', properties: { region: 'eu,e"u', version: '2.0.0' } };
    const res = await advanced({ environments: ['development', 'production'], projects: [project], context });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(JSON.stringify(body)).toBe(res.body);
    let compared = 0;
    for (const feature of body.features) {
      for (const [environment, entries] of Object.entries(
        feature.environments as Record<string, { context: Record<string, string> }[]>,
      )) {
        for (const entry of entries) {
          const single = await playground({ environment, projects: [project], context: entry.context });
          const { featureEnabled, ...report } = byName(single.json().features, feature.name);
          expect(featureEnabled).toBe(report.isEnabled);
          expect(JSON.stringify(entry)).toBe(
            JSON.stringify({ ...report, environment, context: entry.context }),
          );
          compared++;
        }
      }
    }
    expect(compared).toBe(body.features.length * 2 * 4);
    const richDev = byName(body.features, rich).environments.development;
    expect(new Set(richDev.map((e: { isEnabled: boolean }) => e.isEnabled))).toEqual(new Set([true, false]));
  });

  it('refuses more evaluations than the limit, naming the total, the limit and the factors', async () => {
    const res = await advanced({
      environments: ['development', 'production'],
      projects: [project],
      context: { appName: 'web', userId: Array.from({ length: 20 }, (_, i) => `u${i}`).join(',') },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().message).toMatch(/limit of 50/);
    expect(res.json().message).toMatch(/2 environments x \d+ flags x 20 context combinations/);
  });

  it('answers 400 for no environments and for a malformed environment name', async () => {
    expect((await advanced({ environments: [], context: { appName: 'a' } })).statusCode).toBe(400);
    expect((await advanced({ environments: ['a b'], context: { appName: 'a' } })).statusCode).toBe(400);
  });
});
