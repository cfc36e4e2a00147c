import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemStorageProvider, startUnleash, type Unleash } from 'unleash-client';
import { InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp, uniqueName } from '../../test/harness.js';
import { freePort, killAll, startService } from '../../test/process.js';
import { within } from '../../test/within.js';
import { loadConfig, testConfig } from '../config.js';
import { type EdgeApp, openEdge } from './edge.main.js';
import { parsePretrusted } from './edge.tokens.js';

/**
 * Edge mode against this service as its upstream (on the engine under test): the replica serves
 * what the upstream serves, follows its changes through the upstream's stream, forwards SDK
 * metrics, keeps serving while the upstream is away, and says which state it is in.
 */
let t: TestApp;
let upstreamUrl: string;
let edge: EdgeApp;
let edgeUrl: string;
let sdk: Unleash | undefined;
const ENV = 'development';
const tokens = { client: '', frontend: '', production: '' };
const flags = {
  on: uniqueName('edge-on'),
  rollout: uniqueName('edge-roll'),
  variants: uniqueName('edge-var'),
  off: uniqueName('edge-off'),
};
const project = 'default';
/** `METHOD url` of every request the edge's Fastify routed (a hook of this test). */
const reached: string[] = [];
/** Where the replica keeps its last configuration (EDGE_BACKUP_FOLDER). */
const backupFolder = mkdtempSync(join(tmpdir(), 'edge-backup-'));
const envUrl = (flag: string) => `/api/admin/projects/${project}/features/${flag}/environments/${ENV}`;

async function admin(method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  const res = await t.send(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url} → ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}

const token = async (type: 'client' | 'frontend', environment: string) =>
  (
    await admin('POST', '/api/admin/api-tokens', {
      tokenName: uniqueName('edge'),
      type,
      environment,
      projects: ['*'],
    })
  ).secret as string;

const get = (base: string, path: string, secret: string, headers: Record<string, string> = {}) =>
  fetch(base + path, { headers: { authorization: secret, ...headers } });
const post = (base: string, path: string, secret: string, body: unknown) =>
  fetch(base + path, {
    method: 'POST',
    headers: { authorization: secret, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  upstreamUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  for (const name of Object.values(flags))
    await admin('POST', `/api/admin/projects/${project}/features`, { name });
  await admin('POST', `${envUrl(flags.on)}/strategies`, { name: 'default' });
  const segment = await admin('POST', '/api/admin/segments', {
    name: uniqueName('edge-seg'),
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['web', 'edge-test'] }],
  });
  await admin('POST', `${envUrl(flags.rollout)}/strategies`, {
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'userId', groupId: flags.rollout },
    constraints: [{ contextName: 'userId', operator: 'STR_STARTS_WITH', values: ['u'] }],
    segments: [segment.id],
  });
  await admin('POST', `${envUrl(flags.variants)}/strategies`, { name: 'default' });
  await admin('PUT', `${envUrl(flags.variants)}/variants`, [
    {
      name: 'blue',
      weight: 500,
      weightType: 'variable',
      stickiness: 'default',
      payload: { type: 'string', value: 'b' },
    },
    {
      name: 'green',
      weight: 500,
      weightType: 'variable',
      stickiness: 'default',
      payload: { type: 'json', value: '{"g":1}' },
    },
  ]);
  for (const name of [flags.on, flags.rollout, flags.variants]) await admin('POST', `${envUrl(name)}/on`);
  tokens.client = await token('client', ENV);
  tokens.frontend = await token('frontend', ENV);
  tokens.production = await token('client', 'production');

  const opened = await openEdge(
    testConfig({
      UPSTREAM_URL: upstreamUrl,
      UPSTREAM_TOKENS: tokens.client,
      EDGE_REFRESH_SECONDS: 3600,
      EDGE_METRICS_SECONDS: 3600,
      EDGE_BACKUP_FOLDER: backupFolder,
      EDGE_PRETRUSTED_TOKENS: `kiosk-secret@${ENV},kiosk-prod@production`,
    }),
  );
  edge = opened.app;
  edge.addHook('onRequest', (request, _reply, done) => {
    reached.push(`${request.method} ${request.url}`);
    done();
  });
  await edge.listen({ port: 0, host: '127.0.0.1' });
  edgeUrl = `http://127.0.0.1:${(edge.server.address() as AddressInfo).port}`;
  await opened.configured;
}, 60_000);

afterAll(async () => {
  sdk?.destroy();
  await edge?.close();
  await t?.close();
  await killAll();
  rmSync(backupFolder, { recursive: true, force: true });
});

describe('the upstream side', () => {
  it('POST /edge/validate lists the valid SDK tokens with their scope, and nothing else', async () => {
    const res = await post(upstreamUrl, '/edge/validate', '', {
      tokens: [tokens.client, tokens.frontend, ADMIN_TOKEN, 'default:development.nope', tokens.client],
    });
    expect(res.status).toBe(200);
    expect((await res.json()).tokens).toEqual([
      { token: tokens.client, type: 'client', environment: ENV, projects: ['*'] },
      { token: tokens.frontend, type: 'frontend', environment: ENV, projects: ['*'] },
    ]);
    const bad = await post(upstreamUrl, '/edge/validate', '', { tokens: 'x' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).name).toBe('ValidationError');
  });
});

describe('serving', () => {
  it('serves the client features the upstream serves, with a 304 for the same content', async () => {
    const headers = { 'unleash-client-spec': '5.2.0' };
    const [mine, theirs] = await Promise.all([
      get(edgeUrl, '/api/client/features', tokens.client, headers),
      get(upstreamUrl, '/api/client/features', tokens.client, headers),
    ]);
    expect(mine.status).toBe(200);
    const [a, b] = [await mine.json(), await theirs.json()];
    expect(a.features).toEqual(b.features);
    expect(a.segments).toEqual(b.segments);
    expect(a.features.map((f: { name: string }) => f.name)).toEqual(
      expect.arrayContaining(Object.values(flags)),
    );
    const again = await get(edgeUrl, '/api/client/features', tokens.client, {
      ...headers,
      'if-none-match': mine.headers.get('etag') as string,
    });
    expect(again.status).toBe(304);
  });

  it('answers the SDK poll that finds nothing new before routing, exactly as its route does', async () => {
    const headersOf = (res: Response) => [...res.headers].filter(([name]) => name !== 'date');
    for (const encoding of ['identity', 'gzip']) {
      const first = await get(edgeUrl, '/api/client/features', tokens.client, {
        'accept-encoding': encoding,
      });
      expect(first.status).toBe(200);
      const poll = { 'accept-encoding': encoding, 'if-none-match': first.headers.get('etag') as string };
      const from = reached.length;
      const early = await get(edgeUrl, '/api/client/features', tokens.client, poll);
      expect(early.status).toBe(304);
      expect(reached.slice(from), encoding).toEqual([]);
      // A query string takes the route: the answer to compare with. (Not an empty one: fetch
      // drops it.)
      const routed = await get(edgeUrl, '/api/client/features?_=1', tokens.client, poll);
      expect(routed.status).toBe(304);
      expect(reached.slice(from)).toEqual(['GET /api/client/features?_=1']);
      expect(headersOf(early)).toEqual(headersOf(routed));
    }
    // A token the replica has not checked yet goes to the route, which asks the upstream.
    const unchecked = await token('client', ENV);
    const from = reached.length;
    const res = await get(edgeUrl, '/api/client/features', unchecked, { 'if-none-match': '"x"' });
    expect(res.status).toBe(200);
    expect(reached.slice(from)).toEqual(['GET /api/client/features']);
  });

  it("answers a frontend SDK's repeated poll before routing, with the route's headers, on /api/frontend and /all", async () => {
    const headersOf = (res: Response) => [...res.headers].filter(([name]) => name !== 'date');
    for (const path of ['/api/frontend', '/api/frontend/all']) {
      const url = `${path}?userId=u7&appName=edge-test&sessionId=early-${path.length}`;
      const from = reached.length;
      const routed = await get(edgeUrl, url, tokens.frontend, { 'accept-encoding': 'gzip' });
      const early = await get(edgeUrl, url, tokens.frontend, { 'accept-encoding': 'gzip' });
      expect(routed.status).toBe(200);
      expect(reached.slice(from), path).toEqual([`GET ${url}`]);
      expect(headersOf(early)).toEqual(headersOf(routed));
      expect(await early.json()).toEqual(await routed.json());
    }
  });

  it('answers the frontend API and OFREP exactly as the upstream does, for many contexts', async () => {
    for (let i = 0; i < 40; i++) {
      const query = `userId=u${i}&appName=${i % 3 === 0 ? 'other' : 'edge-test'}&sessionId=s${i}`;
      const [mine, theirs] = await Promise.all([
        get(edgeUrl, `/api/frontend?${query}`, tokens.frontend),
        get(upstreamUrl, `/api/frontend?${query}`, tokens.frontend),
      ]);
      expect(mine.status).toBe(200);
      const expected = await theirs.json();
      expect(await mine.json()).toEqual(expected);
      // The older proxy's path, as Unleash Edge serves it, answers the same.
      if (i % 10 === 0) {
        const proxied = await get(edgeUrl, `/api/proxy?${query}`, tokens.frontend);
        expect(proxied.status).toBe(200);
        expect(await proxied.json()).toEqual(expected);
      }
      const context = {
        targetingKey: `u${i}`,
        userId: `u${i}`,
        appName: i % 3 === 0 ? 'other' : 'edge-test',
      };
      const [ofrepMine, ofrepTheirs] = await Promise.all([
        post(edgeUrl, '/ofrep/v1/evaluate/flags', tokens.client, { context }),
        post(upstreamUrl, '/ofrep/v1/evaluate/flags', tokens.client, { context }),
      ]);
      expect(ofrepMine.status).toBe(200);
      expect(await ofrepMine.json()).toEqual(await ofrepTheirs.json());
    }
  });

  it('answers every flag on /api/frontend/all and /api/proxy/all, the disabled ones with enabled: false', async () => {
    const query = 'userId=u3&appName=edge-test';
    const enabled = (await (await get(edgeUrl, `/api/frontend?${query}`, tokens.frontend)).json()).toggles;
    const all = await get(edgeUrl, `/api/frontend/all?${query}`, tokens.frontend);
    expect(all.status).toBe(200);
    const toggles: { name: string; enabled: boolean }[] = (await all.json()).toggles;
    const ours = toggles.filter((t) => Object.values(flags).includes(t.name));
    expect(ours.map((t) => t.name).sort()).toEqual(Object.values(flags).sort());
    expect(toggles.filter((t) => t.enabled)).toEqual(enabled);
    expect(toggles.find((t) => t.name === flags.off)).toEqual({
      name: flags.off,
      enabled: false,
      variant: { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false },
      impressionData: false,
    });
    const etag = all.headers.get('etag') as string;
    expect(
      (await get(edgeUrl, `/api/frontend/all?${query}`, tokens.frontend, { 'if-none-match': etag })).status,
    ).toBe(304);
    const viaPost = await post(edgeUrl, '/api/proxy/all', tokens.frontend, {
      context: { userId: 'u3', appName: 'edge-test' },
    });
    expect(viaPost.status).toBe(200);
    expect((await viaPost.json()).toggles).toEqual(toggles);
    const metrics = await post(edgeUrl, '/api/frontend/all/client/metrics', tokens.frontend, {
      appName: 'edge-test',
      bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: {} },
    });
    expect(metrics.status).toBe(200);
  });

  it('works with the browser SDK (unleash-proxy-client) as it does against the upstream', async () => {
    const make = (url: string) =>
      new UnleashClient({
        url: `${url}/api/frontend`,
        clientKey: tokens.frontend,
        appName: 'edge-test',
        refreshInterval: 0,
        disableMetrics: true,
        storageProvider: new InMemoryStorageProvider(),
        context: { userId: 'u7' },
      });
    const [mine, theirs] = [make(edgeUrl), make(upstreamUrl)];
    await Promise.all([mine.start(), theirs.start()]);
    try {
      for (const name of Object.values(flags)) {
        expect(mine.isEnabled(name), name).toBe(theirs.isEnabled(name));
        expect(mine.getVariant(name), name).toEqual(theirs.getVariant(name));
      }
      expect(mine.isEnabled(flags.on)).toBe(true);
    } finally {
      mine.stop();
      theirs.stop();
    }
  });

  it('serves a replica chained behind it: /edge/validate lists the tokens it serves, the second replica the same flags', async () => {
    const validated = await post(edgeUrl, '/edge/validate', '', {
      tokens: [tokens.client, tokens.production, 'default:development.not-a-token'],
    });
    expect(validated.status).toBe(200);
    // Only the token this replica serves (its startup token covers development, not production).
    expect((await validated.json()).tokens).toEqual([
      expect.objectContaining({ token: tokens.client, type: 'client', environment: ENV }),
    ]);
    const chained = await openEdge(
      testConfig({
        UPSTREAM_URL: edgeUrl,
        UPSTREAM_TOKENS: tokens.client,
        EDGE_REFRESH_SECONDS: 3600,
        EDGE_METRICS_SECONDS: 3600,
        // Served under a path prefix, as behind a proxy that routes /flags/edge to it.
        EDGE_BASE_PATH: '/flags/edge',
      }),
    );
    try {
      await chained.app.listen({ port: 0, host: '127.0.0.1' });
      await chained.configured;
      const root = `http://127.0.0.1:${(chained.app.server.address() as AddressInfo).port}`;
      const chainedUrl = `${root}/flags/edge`;
      const [first, second] = await Promise.all([
        get(edgeUrl, '/api/client/features', tokens.client),
        get(chainedUrl, '/api/client/features', tokens.client),
      ]);
      expect(second.status).toBe(200);
      expect((await second.json()).features).toEqual((await first.json()).features);
      expect(await (await fetch(`${chainedUrl}/internal-backstage/health`)).json()).toEqual({ status: 'OK' });
      // Outside the prefix nothing is served.
      const outside = await get(root, '/api/client/features', tokens.client);
      expect(outside.status).toBe(404);
      expect((await outside.json()).name).toBe('NotFoundError');
    } finally {
      await chained.app.close();
    }
  });

  it('serves pretrusted frontend tokens (PRETRUSTED_TOKENS) without asking the upstream', async () => {
    const query = 'userId=u1&appName=edge-test';
    const [trusted, real] = await Promise.all([
      get(edgeUrl, `/api/frontend?${query}`, 'kiosk-secret'),
      get(edgeUrl, `/api/frontend?${query}`, tokens.frontend),
    ]);
    expect(trusted.status).toBe(200);
    expect(await trusted.json()).toEqual(await real.json());
    // Frontend only, and only where a startup token gives the replica the configuration.
    expect((await get(edgeUrl, '/api/client/features', 'kiosk-secret')).status).toBe(403);
    expect((await get(edgeUrl, `/api/frontend?${query}`, 'kiosk-prod')).status).toBe(403);
    expect(() => parsePretrusted('no-environment-here')).toThrow(/PRETRUSTED_TOKENS/);
    expect(parsePretrusted('default:production.abc, s3cret@dev')).toEqual([
      { token: 'default:production.abc', type: 'frontend', environment: 'production', projects: ['default'] },
      { token: 's3cret', type: 'frontend', environment: 'dev', projects: ['*'] },
    ]);
  });

  it('refuses tokens it cannot serve: unknown 401, an environment no startup token covers 403, admin 401', async () => {
    expect((await get(edgeUrl, '/api/client/features', 'default:development.unknown')).status).toBe(401);
    const production = await get(edgeUrl, '/api/client/features', tokens.production);
    expect(production.status).toBe(403);
    expect((await production.json()).name).toBe('NoAccessError');
    expect((await get(edgeUrl, '/api/client/features', ADMIN_TOKEN)).status).toBe(401);
    // Each kind of token on its own paths only, as Unleash Edge.
    expect((await get(edgeUrl, '/api/frontend', tokens.client)).status).toBe(403);
    expect((await get(edgeUrl, '/api/frontend/all', tokens.client)).status).toBe(403);
    expect((await get(edgeUrl, '/api/client/features', tokens.frontend)).status).toBe(403);
  });
});

describe('Unleash Edge’s debugging endpoints', () => {
  it('show the environment of a client token it serves, never a secret; 401 without one', async () => {
    expect((await fetch(`${edgeUrl}/internal-backstage/features`)).status).toBe(401);
    expect((await get(edgeUrl, '/internal-backstage/tokens', tokens.frontend)).status).toBe(403);
    const features = await (await get(edgeUrl, '/internal-backstage/features', tokens.client)).json();
    expect(Object.keys(features)).toEqual([ENV]);
    const served = await (await get(edgeUrl, '/api/client/features', tokens.client)).json();
    expect(features[ENV].features.map((f: { name: string }) => f.name).sort()).toEqual(
      served.features.map((f: { name: string }) => f.name).sort(),
    );
    await get(edgeUrl, '/api/client/features', 'default:development.not-valid-anywhere');
    const text = await (await get(edgeUrl, '/internal-backstage/tokens', tokens.client)).text();
    const secretOf = (t: string) => t.slice(t.indexOf('.') + 1);
    for (const secret of [tokens.client, tokens.frontend]) expect(text).not.toContain(secretOf(secret));
    const listed = JSON.parse(text);
    expect(listed.tokenRefreshes).toEqual([
      expect.objectContaining({
        token: expect.objectContaining({ environment: ENV, type: 'client', status: 'Validated' }),
        lastCheck: expect.any(String),
        failureCount: 0,
        lastFeatureCount: served.features.length,
      }),
    ]);
    expect(listed.tokenRefreshes[0].token.token).toMatch(/^\*:development\.[^*]{6}\*\*\*\*[^*]{6}$/);
    expect(listed.tokenValidationStatus).toContainEqual(
      expect.objectContaining({ type: 'frontend', environment: ENV, status: 'Validated' }),
    );
    expect(listed.tokenValidationStatus).toContainEqual(
      expect.objectContaining({ token: 'kio****', status: 'Trusted' }),
    );
    expect(listed.invalidTokenCount).toBeGreaterThanOrEqual(1);
  });

  it('show the metrics waiting to go upstream, the chained Unleash Edges that reported, and Prometheus figures', async () => {
    const appName = uniqueName('batch-app');
    const now = new Date().toISOString();
    await post(edgeUrl, '/api/client/metrics', tokens.client, {
      appName,
      instanceId: 'i1',
      bucket: { start: now, stop: now, toggles: { [flags.on]: { yes: 3, no: 1 } } },
    });
    const batch = await (await get(edgeUrl, '/internal-backstage/metricsbatch', tokens.client)).json();
    expect(batch.metrics).toContainEqual(
      expect.objectContaining({ appName, featureName: flags.on, environment: ENV, yes: 3, no: 1 }),
    );
    const reported = await post(edgeUrl, '/api/client/metrics/edge', tokens.client, {
      identifier: 'downstream-edge-1',
      appName: 'unleash-edge',
      edgeVersion: '19.0.0',
    });
    expect(reported.status).toBe(202);
    expect((await post(edgeUrl, '/api/client/metrics/edge', tokens.client, { appName: 'x' })).status).toBe(
      400,
    );
    const instances = await (await get(edgeUrl, '/internal-backstage/instancedata', tokens.client)).json();
    expect(instances.connected_instances).toEqual([
      { identifier: 'downstream-edge-1', appName: 'unleash-edge', edgeVersion: '19.0.0' },
    ]);
    expect(instances.this_instance.appName).toBe('flagship-edge');
    const prometheus = await fetch(`${edgeUrl}/internal-backstage/metrics`);
    expect(prometheus.status).toBe(200);
    expect(await prometheus.text()).toMatch(/http_requests_total\{[^}]*route="\/api\/client\/features"/);
  });

  it('refuses a token revoked upstream within EDGE_TOKEN_REVALIDATION_SECONDS', async () => {
    const revalidating = await openEdge(
      testConfig({
        UPSTREAM_URL: upstreamUrl,
        UPSTREAM_TOKENS: tokens.client,
        EDGE_REFRESH_SECONDS: 3600,
        EDGE_METRICS_SECONDS: 3600,
        EDGE_STREAMING: false,
        EDGE_TOKEN_REVALIDATION_SECONDS: 0.3,
      }),
    );
    try {
      await revalidating.app.listen({ port: 0, host: '127.0.0.1' });
      await revalidating.configured;
      const url = `http://127.0.0.1:${(revalidating.app.server.address() as AddressInfo).port}`;
      const doomed = await token('client', ENV);
      expect((await get(url, '/api/client/features', doomed)).status).toBe(200);
      await admin('DELETE', `/api/admin/api-tokens/${encodeURIComponent(doomed)}`);
      await within(5_000, async () => (await get(url, '/api/client/features', doomed)).status === 401);
      expect((await get(url, '/api/client/features', tokens.client)).status).toBe(200);
    } finally {
      await revalidating.app.close();
    }
  });
});

describe('following the upstream', () => {
  it('gets an admin change to a streaming Node SDK within a second, with no poll', async () => {
    sdk = await startUnleash({
      url: `${edgeUrl}/api/`,
      appName: 'edge-test',
      customHeaders: { Authorization: tokens.client },
      refreshInterval: 3_600_000,
      disableMetrics: true,
      experimentalMode: { type: 'streaming' },
      storageProvider: new InMemStorageProvider(),
      skipInstanceCountWarning: true,
    });
    const client = sdk;
    expect(client.isEnabled(flags.on)).toBe(true);
    await admin('POST', `${envUrl(flags.on)}/off`);
    await within(1000, () => !client.isEnabled(flags.on));
    await admin('POST', `${envUrl(flags.on)}/on`);
    await within(1000, () => client.isEnabled(flags.on));
    const created = uniqueName('edge-new');
    await admin('POST', `/api/admin/projects/${project}/features`, { name: created });
    await admin('POST', `${envUrl(created)}/strategies`, { name: 'default' });
    await admin('POST', `${envUrl(created)}/on`);
    await within(1000, () => client.isEnabled(created));
  });

  it('forwards SDK registrations and metrics upstream in one batch', async () => {
    const appName = uniqueName('edge-app');
    const start = new Date().toISOString();
    expect(
      (
        await post(edgeUrl, '/api/client/register', tokens.client, {
          appName,
          instanceId: 'i-1',
          sdkVersion: 'unleash-client-node:6.12.0',
          strategies: ['default'],
          started: start,
          interval: 10_000,
        })
      ).status,
    ).toBe(202);
    for (const yes of [3, 4]) {
      const bucket = { start, stop: start, toggles: { [flags.on]: { yes, no: 1, variants: {} } } };
      expect(
        (await post(edgeUrl, '/api/client/metrics', tokens.client, { appName, instanceId: 'i-1', bucket }))
          .status,
      ).toBe(202);
    }
    const sentBefore = edge.edge.reporting.stats.sent;
    await edge.edge.reporting.flush();
    const usage = await (await t.send('GET', `/api/admin/client-metrics/features/${flags.on}`)).json();
    expect(usage.lastHourUsage).toContainEqual(
      expect.objectContaining({ appName, environment: ENV, yes: 7, no: 2 }),
    );
    const application = await t.send('GET', `/api/admin/metrics/applications/${appName}`);
    expect(application.statusCode).toBe(200);
    // This test's row and the one the debugging test left, in one part.
    expect(edge.edge.reporting.stats.sent - sentBefore).toBe(2);
  });

  it('keeps serving the last configuration while the upstream is away, and says so', async () => {
    const before = await (await get(edgeUrl, '/api/client/features', tokens.client)).json();
    await t.app.close();
    const [startup] = edge.edge.tokens.startup;
    await edge.edge.configuration.refresh(startup as never);
    const health = await (await fetch(`${edgeUrl}/health`)).json();
    expect(health).toMatchObject({ health: 'GOOD', ready: true, upstream: 'unreachable' });
    expect((await fetch(`${edgeUrl}/ready`)).status).toBe(200);
    expect(await (await fetch(`${edgeUrl}/internal-backstage/ready`)).json()).toEqual({ status: 'READY' });
    const after = await get(edgeUrl, '/api/client/features', tokens.client);
    expect(after.status).toBe(200);
    expect((await after.json()).features).toEqual(before.features);
    // A token never seen cannot be checked: 503, not a refusal of the token.
    const unseen = await get(edgeUrl, '/api/client/features', 'default:development.never-seen');
    expect(unseen.status).toBe(503);
    expect((await unseen.json()).name).toBe('ServiceUnavailableError');
  });
});

describe('the program in edge mode', () => {
  it('takes Unleash Edge’s names for the settings it shares, its own names winning', () => {
    const edgeEnv = {
      UPSTREAM_URL: 'http://upstream:4242',
      TOKENS: '*:production.abc',
      FEATURES_REFRESH_INTERVAL_SECONDS: '30',
      METRICS_INTERVAL_SECONDS: '120',
      INTERFACE: '::',
      CORS_ORIGIN: 'https://app.example.com',
    };
    expect(loadConfig(edgeEnv)).toMatchObject({
      UPSTREAM_TOKENS: '*:production.abc',
      EDGE_REFRESH_SECONDS: 30,
      EDGE_METRICS_SECONDS: 120,
      HOST: '::',
      FRONTEND_CORS_ORIGINS: 'https://app.example.com',
    });
    expect(loadConfig({ ...edgeEnv, EDGE_REFRESH_SECONDS: '5' }).EDGE_REFRESH_SECONDS).toBe(5);
    // Edge's TRUST_PROXY is on or off; PROXY_TRUSTED_SERVERS then narrows it to those servers.
    const proxied = { ...edgeEnv, TRUST_PROXY: 'true', PROXY_TRUSTED_SERVERS: '10.0.0.0/8,192.168.1.1' };
    expect(loadConfig(proxied).TRUST_PROXY).toBe('10.0.0.0/8,192.168.1.1');
    expect(loadConfig({ ...proxied, TRUST_PROXY: 'false' }).TRUST_PROXY).toBe('false');
    // Outside edge mode, Edge's names mean nothing (a TOKENS of some other program is left alone).
    expect(loadConfig({ TOKENS: 'x', INTERFACE: '::' })).toMatchObject({ HOST: '0.0.0.0' });
    expect(loadConfig({ TOKENS: 'x' }).UPSTREAM_TOKENS).toBeUndefined();
    // A bad value under Edge's name is refused as the service's own would be.
    expect(() => loadConfig({ ...edgeEnv, FEATURES_REFRESH_INTERVAL_SECONDS: 'soon' })).toThrow(
      /EDGE_REFRESH_SECONDS/,
    );
  });

  it('restarted while its upstream is away, serves the configuration it saved, and says so', async () => {
    // The replica above saved what it served; the upstream is gone since the test before.
    const saved = readFileSync(join(backupFolder, 'flagship-edge-backup.json'), 'utf8');
    expect(saved).not.toContain(tokens.client); // tokens are kept by hash only
    const served = (await (await get(edgeUrl, '/api/client/features', tokens.client)).json()).features;
    const service = await startService({
      UPSTREAM_URL: upstreamUrl,
      UPSTREAM_TOKENS: tokens.client,
      BACKUP_FOLDER: backupFolder, // Unleash Edge's name
    });
    try {
      await within(10_000, async () => (await fetch(`${service.url}/ready`)).status === 200);
      const health = await (await fetch(`${service.url}/health`)).json();
      expect(health).toMatchObject({
        ready: true,
        upstream: 'unreachable',
        servingBackupOf: expect.any(String),
      });
      const features = await service.request('/api/client/features', tokens.client);
      expect(features.status).toBe(200);
      expect((await features.json()).features).toEqual(served);
      // A token the backup does not know still cannot be checked.
      expect((await service.request('/api/client/features', 'default:development.unknown')).status).toBe(503);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 60_000);

  it('listens before its upstream answers, and is not ready: SDK requests get 503', async () => {
    const nobody = await freePort();
    // Started as an Unleash Edge container is configured (TOKENS, not UPSTREAM_TOKENS).
    const service = await startService({
      UPSTREAM_URL: `http://127.0.0.1:${nobody}`,
      TOKENS: 'default:development.whatever',
    });
    try {
      expect(await (await fetch(`${service.url}/internal-backstage/health`)).json()).toEqual({
        status: 'OK',
      });
      const backstage = await fetch(`${service.url}/internal-backstage/ready`);
      expect(backstage.status).toBe(503);
      expect(await backstage.json()).toMatchObject({ status: 'NOTREADY', name: 'ServiceUnavailableError' });
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
      expect(await (await fetch(`${service.url}/health`)).json()).toMatchObject({
        ready: false,
        upstream: 'unreachable',
      });
      const ready = await fetch(`${service.url}/ready`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).name).toBe('ServiceUnavailableError');
      const features = await service.request('/api/client/features', 'default:development.whatever');
      expect(features.status).toBe(503);
      await within(5000, () => service.stdout().includes('The upstream cannot be reached'));
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }, 60_000);
});
