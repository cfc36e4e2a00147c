import type { AddressInfo } from 'node:net';
import { InMemStorageProvider, startUnleash, type Unleash } from 'unleash-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './api.js';
import { configSql } from './config-sql.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * The real Node SDK (unleash-client 6.12), fed through our client API, must answer exactly what
 * the playground answers (evaluation.md contract 1 and 2) on a generated configuration.
 */
let t: TestApp;
let sdk: Unleash;
const project = uniqueName('sdk');
const flags: string[] = [];

function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(20261122);
const pick = <T>(items: T[]): T => items[Math.floor(rand() * items.length)] as T;
const int = (n: number) => Math.floor(rand() * n);

const CONSTRAINTS = [
  () => ({ contextName: 'userId', operator: 'IN', values: ['u1', 'u3', 'u7', 'u12'] }),
  () => ({ contextName: 'userId', operator: 'NOT_IN', values: ['u2', 'u4'] }),
  () => ({ contextName: 'userId', operator: 'STR_STARTS_WITH', values: ['u1'] }),
  () => ({ contextName: 'userId', operator: 'STR_ENDS_WITH', values: ['5', '9'], inverted: true }),
  () => ({ contextName: 'sessionId', operator: 'STR_CONTAINS', values: ['S2'], caseInsensitive: true }),
  () => ({ contextName: 'num', operator: 'NUM_GT', value: '5' }),
  () => ({ contextName: 'num', operator: 'NUM_LTE', value: '3' }),
  () => ({ contextName: 'version', operator: 'SEMVER_GTE', value: '2.0.0' }),
  () => ({ contextName: 'version', operator: 'SEMVER_LT', value: '1.5.0' }),
  () => ({ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2020-01-01T00:00:00.000Z' }),
  () => ({ contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2021-01-01T00:00:00.000Z' }),
  () => ({ contextName: 'userId', operator: 'REGEX', value: '^u[0-4]$' }),
  () => ({ contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }),
  () => ({ contextName: 'appName', operator: 'IN', values: ['sdk-test'] }),
];

function strategy(flag: string, segments: number[]) {
  const name = pick([
    'default',
    'flexibleRollout',
    'flexibleRollout',
    'userWithId',
    'remoteAddress',
    'gradualRolloutUserId',
    'gradualRolloutSessionId',
    'customThing',
  ]);
  const parameters: Record<string, string> =
    {
      flexibleRollout: {
        rollout: String(int(101)),
        stickiness: pick(['default', 'userId', 'sessionId']),
        groupId: pick([flag, 'shared']),
      },
      userWithId: { userIds: 'u1, u5,u9' },
      remoteAddress: { IPs: '10.0.0.5, 192.168.0.0/24' },
      gradualRolloutUserId: { percentage: String(int(101)), groupId: flag },
      gradualRolloutSessionId: { percentage: String(int(101)), groupId: flag },
    }[name] ?? {};
  const constraints = Array.from({ length: int(3) }, () => pick(CONSTRAINTS)()).map((c) =>
    rand() < 0.2 ? { ...c, inverted: !('inverted' in c && c.inverted) } : c,
  );
  const variants =
    rand() < 0.3
      ? [
          {
            name: 'a',
            weight: 300,
            weightType: 'variable',
            stickiness: 'default',
            payload: { type: 'string', value: 'A' },
          },
          { name: 'b', weight: 700, weightType: 'variable', stickiness: 'default' },
        ]
      : [];
  return {
    name,
    parameters,
    constraints,
    variants,
    segments: rand() < 0.3 ? [pick(segments)] : [],
    disabled: rand() < 0.1,
    sortOrder: int(5),
  };
}

beforeAll(async () => {
  t = await startTestApp();
  const sql = configSql(t);
  await t.database.session(async (run) => {
    await run('INSERT INTO projects (id, name) VALUES ($1, $1)', [project]);
    await run(`INSERT INTO project_environments (project_id, environment_name) VALUES ($1, 'development')`, [
      project,
    ]);
    await run(`INSERT INTO strategies (name) VALUES ('customThing') ON CONFLICT DO NOTHING`, []);
  });
  const segments = [
    await sql.addSegment(uniqueName('s'), [
      { contextName: 'userId', operator: 'IN', values: ['u1', 'u2', 'u3'] },
    ]),
    await sql.addSegment(uniqueName('s'), [{ contextName: 'num', operator: 'NUM_GTE', value: '8' }]),
  ];
  for (let i = 0; i < 30; i++) {
    const name = `${project}-f${i}`;
    flags.push(name);
    await api(t).createFlag(project, { name });
    if (rand() < 0.85) await sql.enable(name, 'development');
    for (let s = int(4); s > 0; s--) await sql.addStrategy(name, 'development', strategy(name, segments));
    if (rand() < 0.4) {
      await sql.setVariants(name, 'development', [
        {
          name: 'x',
          weight: 500,
          weightType: 'variable',
          stickiness: 'default',
          overrides: [{ contextName: 'userId', values: ['u7'] }],
        },
        {
          name: 'y',
          weight: 250,
          weightType: 'fix',
          stickiness: 'default',
          payload: { type: 'json', value: '{"k":1}' },
        },
        { name: 'z', weight: 250, weightType: 'variable', stickiness: 'default' },
      ]);
    }
    if (i >= 20)
      await sql.addDependency(
        name,
        flags[int(10)] as string,
        rand() < 0.8,
        rand() < 0.3 ? ['x', 'disabled'] : undefined,
      );
  }
  const token = await sql.addToken('client', [project], 'development');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  sdk = await startUnleash({
    url: `http://127.0.0.1:${port}/api/`,
    appName: 'sdk-test',
    customHeaders: { Authorization: token },
    refreshInterval: 100,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
}, 120_000);

afterAll(async () => {
  sdk?.destroy();
  await t.close();
});

describe('the real SDK agrees with the playground', () => {
  it('on isEnabled and the variant for every (flag, context) pair of a generated configuration', async () => {
    const users = Array.from({ length: 25 }, (_, i) => `u${i}`).join(',');
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/playground/advanced',
      payload: {
        environments: ['development'],
        projects: [project],
        context: {
          appName: 'sdk-test',
          userId: users,
          sessionId: 's1,S2',
          remoteAddress: '10.0.0.5,192.168.1.7',
          properties: { num: '3,8', version: '1.2.3,2.0.0' },
        },
      },
    });
    expect(res.statusCode).toBe(200);
    let pairs = 0;
    const disagreements: string[] = [];
    for (const feature of res.json().features) {
      for (const entry of feature.environments.development) {
        const { appName: _app, userId, sessionId, remoteAddress, num, version } = entry.context;
        const context = { userId, sessionId, remoteAddress, properties: { num, version } };
        const enabled = sdk.isEnabled(feature.name, context);
        const variant = sdk.getVariant(feature.name, context);
        const mine = entry.variant;
        const same =
          enabled === entry.isEnabled &&
          variant.name === mine.name &&
          variant.enabled === mine.enabled &&
          variant.feature_enabled === mine.feature_enabled &&
          JSON.stringify(variant.payload) === JSON.stringify(mine.payload);
        if (!same)
          disagreements.push(
            `${feature.name} ${JSON.stringify(context)}: sdk ${enabled}/${variant.name} playground ${entry.isEnabled}/${mine.name}`,
          );
        pairs++;
      }
    }
    expect(disagreements.slice(0, 5)).toEqual([]);
    expect(pairs).toBeGreaterThanOrEqual(10_000);
    // The configuration is varied enough to mean something: both answers occur often.
    const on = res
      .json()
      .features.flatMap((f: { environments: { development: { isEnabled: boolean }[] } }) =>
        f.environments.development.map((e) => e.isEnabled),
      );
    expect(on.filter(Boolean).length).toBeGreaterThan(pairs / 10);
    expect(on.filter((x: boolean) => !x).length).toBeGreaterThan(pairs / 10);
  }, 120_000);

  it('sees an admin change on its next poll', async () => {
    const name = flags[0] as string;
    const before = sdk.getFeatureToggleDefinition(name)?.enabled;
    await configSql(t).enable(name, 'development', !before);
    const started = Date.now();
    while (sdk.getFeatureToggleDefinition(name)?.enabled === before && Date.now() - started < 3000) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(sdk.getFeatureToggleDefinition(name)?.enabled).toBe(!before);
  });
});
