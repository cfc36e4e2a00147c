import type { AddressInfo } from 'node:net';
import { type IMutableContext, InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { prng } from '../../../test/prng.js';

/**
 * The real browser SDK (unleash-proxy-client, with Node's global fetch) against a listening
 * server: for a generated configuration (written through the admin API) and a generated set of
 * contexts, its isEnabled and getVariant equal the admin playground's answers, over GET and over
 * POST; an admin change reaches it on its next poll; its metrics are stored.
 */
let t: TestApp;
let base: string;
let token: string;
const project = uniqueName('fe-sdk');
const ENV = 'development';
const flags: string[] = [];
const clients: UnleashClient[] = [];

const rand = prng(20261124);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const int = (n: number) => Math.floor(rand() * n);

async function call(method: 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await t.send(method, url, payload);
  if (res.statusCode >= 300)
    throw new Error(`${method} ${url} ${JSON.stringify(payload)} → ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}
const FLAGS = () => `/api/admin/projects/${project}/features`;

const USERS = ['u1', 'u2', 'u3', 'u7', 'u12', 'u40'];
const CONSTRAINTS = [
  () => ({ contextName: 'userId', operator: 'IN', values: ['u1', 'u3', 'u7'] }),
  () => ({ contextName: 'userId', operator: 'STR_ENDS_WITH', values: ['2'], inverted: true }),
  () => ({ contextName: 'tenant', operator: 'IN', values: ['t1'] }),
  () => ({ contextName: 'num', operator: 'NUM_GT', value: '5' }),
  () => ({ contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['127.0.0.0/8'] }),
  () => ({ contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'], inverted: true }),
  () => ({ contextName: 'appName', operator: 'IN', values: ['fe-sdk-app'] }),
  () => ({ contextName: 'environment', operator: 'IN', values: ['default'] }),
];
const constraints = () => Array.from({ length: int(3) }, () => pick(CONSTRAINTS)());

/** Every stickiness here finds a value in every context (userId and the session id are always set). */
const STICKINESS = ['default', 'userId', 'sessionId'];

function strategy(flag: string) {
  const name = pick(['default', 'flexibleRollout', 'flexibleRollout', 'userWithId', 'remoteAddress']);
  const parameters =
    {
      flexibleRollout: {
        rollout: String(pick([0, 100, int(101)])),
        stickiness: pick(STICKINESS),
        groupId: flag,
      },
      userWithId: { userIds: 'u1,u7,u40' },
      remoteAddress: { IPs: '127.0.0.1, 10.0.0.5' },
    }[name] ?? {};
  const stickiness = pick(STICKINESS);
  return {
    name,
    parameters,
    constraints: constraints(),
    variants:
      rand() < 0.4
        ? [
            {
              name: 'a',
              weight: 500,
              weightType: 'variable',
              stickiness,
              payload: { type: 'string', value: 'A' },
            },
            {
              name: 'b',
              weight: 500,
              weightType: 'variable',
              stickiness,
              payload: { type: 'json', value: '{"b":2}' },
            },
          ]
        : [],
  };
}

function flagVariants() {
  const stickiness = pick(STICKINESS);
  return [
    {
      name: 'x',
      weight: 500,
      weightType: 'variable',
      stickiness,
      overrides: [{ contextName: 'userId', values: ['u7'] }],
    },
    { name: 'y', weight: 500, weightType: 'variable', stickiness, payload: { type: 'number', value: '7' } },
  ];
}

beforeAll(async () => {
  t = await startTestApp();
  await call('POST', '/api/admin/projects', { id: project, name: project });
  await call('POST', '/api/admin/context', { name: 'tenant' });
  for (let i = 0; i < 24; i++) {
    const name = `${project}-f${i}`;
    flags.push(name);
    await call('POST', FLAGS(), { name, impressionData: rand() < 0.3 });
    for (let s = int(3); s > 0; s--) {
      await call('POST', `${FLAGS()}/${name}/environments/${ENV}/strategies`, strategy(name));
    }
    if (rand() < 0.3) await call('PUT', `${FLAGS()}/${name}/environments/${ENV}/variants`, flagVariants());
    if (i >= 16)
      await call('POST', `${FLAGS()}/${name}/dependencies`, {
        feature: flags[int(8)],
        enabled: rand() < 0.8,
      });
    if (rand() < 0.85) await call('POST', `${FLAGS()}/${name}/environments/${ENV}/on`);
  }
  const created = await call('POST', '/api/admin/api-tokens', {
    tokenName: 'fe-sdk',
    type: 'frontend',
    environment: ENV,
    projects: [project],
  });
  token = created.secret;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  for (const client of clients) client.stop();
  // The SDKs' keep-alive sockets (Node's fetch) may still be open, one with a poll in flight:
  // closing them first keeps the app's close from waiting on them (a teardown hung here on
  // PostgreSQL, not understood yet; see the session notes).
  t.app.server.closeAllConnections();
  await t.close();
});

function client(options: { usePOSTrequests?: boolean; refreshInterval?: number; metrics?: boolean } = {}) {
  const sdk = new UnleashClient({
    url: `${base}/api/frontend`,
    clientKey: token,
    appName: 'fe-sdk-app',
    refreshInterval: options.refreshInterval ?? 0,
    disableRefresh: options.refreshInterval === undefined,
    disableMetrics: !options.metrics,
    metricsInterval: 0.2,
    metricsIntervalInitial: 0.1,
    storageProvider: new InMemoryStorageProvider(),
    usePOSTrequests: options.usePOSTrequests ?? false,
  });
  clients.push(sdk);
  return sdk;
}

function contexts(): (IMutableContext & { userId: string })[] {
  return Array.from({ length: 40 }, (_, i) => {
    const properties: Record<string, string> = {};
    if (rand() < 0.5) properties.tenant = pick(['t1', 't2']);
    if (rand() < 0.5) properties.num = pick(['3', '8']);
    return {
      userId: pick(USERS),
      ...(i % 3 === 0 ? { sessionId: `s${int(5)}` } : {}),
      ...(rand() < 0.4 ? { remoteAddress: pick(['10.0.0.5', '192.168.1.1', '::1']) } : {}),
      properties,
    };
  });
}

interface Played {
  name: string;
  isEnabled: boolean;
  variant: { name: string; enabled: boolean; feature_enabled: boolean; payload?: unknown };
}

describe('unleash-proxy-client against the frontend API', () => {
  it('agrees with the playground on isEnabled and getVariant, over GET and POST', async () => {
    const sdks = [client(), client({ usePOSTrequests: true })];
    for (const sdk of sdks) await sdk.start();
    const disagreements: string[] = [];
    let compared = 0;
    let enabled = 0;
    const variantsSeen = new Set<string>();
    for (const ctx of contexts()) {
      for (const sdk of sdks) {
        await sdk.updateContext(ctx);
        // What the server evaluated: the SDK's own context, the request's address when none is given.
        const context = { ...sdk.getContext(), remoteAddress: ctx.remoteAddress ?? '127.0.0.1' };
        const res = await t.send('POST', '/api/admin/playground', {
          environment: ENV,
          projects: [project],
          context,
        });
        expect(res.statusCode, res.body).toBe(200);
        for (const played of res.json().features as Played[]) {
          const variant = sdk.getVariant(played.name);
          const same =
            sdk.isEnabled(played.name) === played.isEnabled &&
            variant.name === played.variant.name &&
            variant.enabled === played.variant.enabled &&
            variant.feature_enabled === played.variant.feature_enabled &&
            JSON.stringify(variant.payload) === JSON.stringify(played.variant.payload);
          if (!same) {
            disagreements.push(
              `${played.name} ${JSON.stringify(context)}: sdk ${sdk.isEnabled(played.name)}/${variant.name} playground ${played.isEnabled}/${played.variant.name}`,
            );
          }
          compared++;
          if (played.isEnabled) enabled++;
          if (played.variant.enabled) variantsSeen.add(played.variant.name);
        }
      }
    }
    expect(disagreements.slice(0, 10), `${disagreements.length} disagreements`).toEqual([]);
    expect(compared).toBe(40 * 2 * flags.length);
    // Varied enough to mean something: both answers are common, variants with payloads occur.
    expect(enabled).toBeGreaterThan(compared / 10);
    expect(compared - enabled).toBeGreaterThan(compared / 10);
    expect([...variantsSeen].sort()).toEqual(expect.arrayContaining(['a', 'b', 'x', 'y']));
  }, 60_000);

  it('sees an admin change on its next poll and sends metrics that are stored', async () => {
    // A poll every second, not faster: unleash-proxy-client 3.8.2 takes a response's ETag before
    // reading its body, and a poll that starts while a body is still being read aborts that read.
    // Then the SDK holds the old flags under the new ETag and is answered 304 from then on (seen
    // here on a loaded machine with a 0.1 s interval: the server answered correctly, the SDK never
    // saw the change; reproduced against a plain HTTP server whose body read took 150 ms).
    const sdk = client({ refreshInterval: 1, metrics: true });
    await sdk.start();
    await sdk.updateContext({ userId: 'u1' });
    const name = `${project}-live`;
    const waitFor = async (want: boolean) => {
      const started = Date.now();
      // 10 s: on a loaded two-core CI machine 3 s was once not enough.
      while (sdk.isEnabled(name) !== want && Date.now() - started < 10_000) {
        await new Promise((r) => setTimeout(r, 25));
      }
      return sdk.isEnabled(name);
    };
    expect(sdk.isEnabled(name)).toBe(false);
    await call('POST', FLAGS(), { name });
    await call('POST', `${FLAGS()}/${name}/environments/${ENV}/on`);
    expect(await waitFor(true)).toBe(true);
    await call('POST', `${FLAGS()}/${name}/environments/${ENV}/off`);
    expect(await waitFor(false)).toBe(false);
    // isEnabled above was counted; the SDK reports every 0.2 s.
    const started = Date.now();
    let rows: Record<string, unknown>[] = [];
    while (rows.length === 0 && Date.now() - started < 3000) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await t.database.session((run) =>
        run(
          `SELECT environment, (yes + no)::int AS n FROM client_metrics_env WHERE app_name = 'fe-sdk-app' AND feature_name = $1`,
          [name],
        ),
      );
    }
    expect(rows).toEqual([{ environment: ENV, n: expect.any(Number) }]);
    expect(rows[0]?.n).toBeGreaterThan(0);
  });
});
