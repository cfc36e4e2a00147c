import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { InMemStorageProvider, Unleash } from 'unleash-client';
import { InMemoryStorageProvider, UnleashClient } from 'unleash-proxy-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type Child, stopChild } from '../bench/lib/service.js';
import { ensureUnleash, startUnleash } from '../bench/lib/unleash.js';
import { testConfig } from '../src/config.js';
import { type EdgeApp, openEdge } from '../src/edge/edge.main.js';
import { type DbProxy, startDbProxy } from './db-proxy.js';
import { withDatabase } from './global-setup.js';
import { within } from './within.js';

/**
 * Edge mode in front of a real Unleash 8.2, as a team replacing Unleash Edge runs it: Unleash is
 * installed on demand from the npm registry (as `npm run bench -- --compare unleash` does, into the
 * git-ignored bench/.unleash) and started on a scratch database; the replica reaches it through a
 * TCP proxy, so the test can take the upstream away and bring it back. The official SDKs talk to
 * the replica only. PostgreSQL project only: Unleash needs a PostgreSQL server, and the replica
 * keeps no database, so the engine under test does not matter here.
 */
const url = process.env.TEST_DATABASE_URL;
const ENV = 'development';
const PROJECT = 'default';
let unleash: Child | undefined;
let unleashUrl = '';
let proxy: DbProxy | undefined;
let scratch = '';
const edges: EdgeApp[] = [];
const sdks: { destroy(): void }[] = [];
const tokens = { client: '', frontend: '' };
const run = randomBytes(3).toString('hex');
const flags = { on: `edge-on-${run}`, rollout: `edge-roll-${run}`, variants: `edge-var-${run}` };

async function admin(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  const res = await fetch(unleashUrl + path, {
    method,
    headers: {
      authorization: ADMIN_TOKEN,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`Unleash: ${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const envPath = (flag: string) => `/api/admin/projects/${PROJECT}/features/${flag}/environments/${ENV}`;

const newToken = async (type: 'client' | 'frontend') =>
  (
    await admin('POST', '/api/admin/api-tokens', {
      tokenName: `edge-${type}-${randomBytes(3).toString('hex')}`,
      type,
      environment: ENV,
      projects: ['*'],
    })
  ).secret as string;

/** A replica of `upstream` (Unleash through the proxy, or another replica), listening. */
async function startEdge(upstream: string, extra: Parameters<typeof testConfig>[0] = {}) {
  const opened = await openEdge(
    testConfig({
      UPSTREAM_URL: upstream,
      UPSTREAM_TOKENS: tokens.client,
      EDGE_REFRESH_SECONDS: 1,
      EDGE_METRICS_SECONDS: 1,
      EDGE_TOKEN_REVALIDATION_SECONDS: 1,
      ...extra,
    }),
  );
  edges.push(opened.app);
  await opened.app.listen({ port: 0, host: '127.0.0.1' });
  await opened.configured;
  return `http://127.0.0.1:${(opened.app.server.address() as AddressInfo).port}`;
}

const get = (base: string, path: string, secret: string) =>
  fetch(base + path, { headers: { authorization: secret } });

/** The official Node SDK against `base`, once it has its first configuration. */
async function nodeSdk(base: string, mode: 'polling' | 'streaming'): Promise<Unleash> {
  const sdk = new Unleash({
    url: `${base}/api/`,
    appName: `edge-unleash-${mode}`,
    customHeaders: { Authorization: tokens.client },
    refreshInterval: mode === 'polling' ? 1000 : 3_600_000,
    metricsInterval: 3_600_000,
    ...(mode === 'streaming' ? { experimentalMode: { type: 'streaming' as const } } : {}),
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
  sdks.push(sdk);
  await once(sdk, 'synchronized');
  return sdk;
}

describe.skipIf(process.env.TEST_ENGINE !== 'postgres' || !url)('edge mode in front of Unleash 8.2', () => {
  let edgeUrl = '';

  beforeAll(async () => {
    await ensureUnleash(() => {});
    const base = url as string;
    scratch = `unleash_edge_${run}`;
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(`CREATE DATABASE ${scratch}`);
    await client.end();
    unleash = await startUnleash(withDatabase(base, scratch));
    unleashUrl = `http://127.0.0.1:${unleash.port}`;
    proxy = await startDbProxy(`postgres://127.0.0.1:${unleash.port}`);

    for (const name of Object.values(flags)) {
      await admin('POST', `/api/admin/projects/${PROJECT}/features`, { name });
    }
    await admin('POST', `${envPath(flags.on)}/strategies`, { name: 'default' });
    await admin('POST', `${envPath(flags.rollout)}/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'userId', groupId: flags.rollout },
      constraints: [{ contextName: 'userId', operator: 'STR_STARTS_WITH', values: ['u'] }],
    });
    await admin('POST', `${envPath(flags.variants)}/strategies`, {
      name: 'flexibleRollout',
      parameters: { rollout: '100', stickiness: 'default', groupId: flags.variants },
      variants: [
        { name: 'blue', weight: 500, weightType: 'variable', stickiness: 'default' },
        { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
      ],
    });
    for (const name of Object.values(flags)) await admin('POST', `${envPath(name)}/on`);
    tokens.client = await newToken('client');
    tokens.frontend = await newToken('frontend');
    edgeUrl = await startEdge(`http://127.0.0.1:${proxy.port}`);
  }, 300_000);

  afterAll(async () => {
    for (const sdk of sdks) sdk.destroy();
    for (const edge of edges) await edge.close();
    await proxy?.close();
    if (unleash) await stopChild(unleash);
    if (scratch && url) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
      await client.end();
    }
  }, 60_000);

  it('serves the client features Unleash serves, with a 304 for the same content', async () => {
    const [mine, theirs] = await Promise.all([
      get(edgeUrl, '/api/client/features', tokens.client),
      get(unleashUrl, '/api/client/features', tokens.client),
    ]);
    expect(mine.status).toBe(200);
    const byName = (body: { features: { name: string }[] }) =>
      body.features.filter((f) => Object.values(flags).includes(f.name));
    expect(byName(await mine.json())).toEqual(byName(await theirs.json()));
    const again = await fetch(`${edgeUrl}/api/client/features`, {
      headers: { authorization: tokens.client, 'if-none-match': mine.headers.get('etag') as string },
    });
    expect(again.status).toBe(304);
    expect((await get(edgeUrl, '/api/client/features', 'default:development.unknown')).status).toBe(401);
    expect((await get(edgeUrl, '/api/client/features', tokens.frontend)).status).toBe(403);
  });

  it('brings a change made in Unleash to a polling and a streaming Node SDK', async () => {
    const [polling, streaming] = await Promise.all([
      nodeSdk(edgeUrl, 'polling'),
      nodeSdk(edgeUrl, 'streaming'),
    ]);
    expect(polling.isEnabled(flags.on)).toBe(true);
    expect(streaming.isEnabled(flags.on)).toBe(true);
    await admin('POST', `${envPath(flags.on)}/off`);
    await within(20_000, () => !polling.isEnabled(flags.on) && !streaming.isEnabled(flags.on));
    await admin('POST', `${envPath(flags.on)}/on`);
    await within(20_000, () => polling.isEnabled(flags.on) && streaming.isEnabled(flags.on));
  });

  it('evaluates the frontend API as Unleash does, for unleash-proxy-client', async () => {
    const make = (base: string, userId: string) =>
      new UnleashClient({
        url: `${base}/api/frontend`,
        clientKey: tokens.frontend,
        appName: 'edge-unleash-frontend',
        refreshInterval: 0,
        disableMetrics: true,
        storageProvider: new InMemoryStorageProvider(),
        context: { userId },
      });
    // Unleash's own frontend API reads a cache it refreshes on its own schedule: wait until it
    // shows this test's flags before comparing.
    await within(60_000, async () => {
      const res = await get(unleashUrl, '/api/frontend', tokens.frontend);
      const body = (await res.json()) as { toggles?: { name: string }[] };
      return body.toggles?.some((f) => f.name === flags.variants) ?? false;
    });
    for (const userId of ['u1', 'u2', 'u3', 'u4', 'x1']) {
      const [mine, theirs] = [make(edgeUrl, userId), make(unleashUrl, userId)];
      await Promise.all([mine.start(), theirs.start()]);
      try {
        for (const name of Object.values(flags)) {
          expect(mine.isEnabled(name), `${name} ${userId}`).toBe(theirs.isEnabled(name));
          expect(mine.getVariant(name), `${name} ${userId}`).toEqual(theirs.getVariant(name));
        }
      } finally {
        mine.stop();
        theirs.stop();
      }
    }
  });

  it("forwards the SDK's metrics, which arrive in Unleash's metrics views", async () => {
    const sdk = await nodeSdk(edgeUrl, 'polling');
    for (let i = 0; i < 5; i++) sdk.isEnabled(flags.rollout, { userId: `u${i}` });
    await sdk.flushMetrics();
    await within(60_000, async () => {
      const usage = await admin('GET', `/api/admin/client-metrics/features/${flags.rollout}`);
      const rows = (usage.lastHourUsage ?? []) as { environment: string; yes: number; no: number }[];
      return rows.some((r) => r.environment === ENV && r.yes + r.no >= 5);
    });
  }, 90_000);

  it('refuses tokens revoked in Unleash within its revalidation interval', async () => {
    const doomed = { client: await newToken('client'), frontend: await newToken('frontend') };
    const paths = { client: '/api/client/features', frontend: '/api/frontend' };
    const status = (base: string, kind: 'client' | 'frontend') =>
      get(base, paths[kind], doomed[kind]).then((r) => r.status);
    expect([await status(edgeUrl, 'client'), await status(edgeUrl, 'frontend')]).toEqual([200, 200]);
    for (const secret of Object.values(doomed)) {
      await admin('DELETE', `/api/admin/api-tokens/${encodeURIComponent(secret)}`);
    }
    for (const kind of ['client', 'frontend'] as const) {
      // Unleash itself honours a deleted token until it reloads its token cache (every minute).
      await within(90_000, async () => (await status(unleashUrl, kind)) === 401);
      // The replica asks again after EDGE_TOKEN_REVALIDATION_SECONDS (1 here).
      await within(5_000, async () => (await status(edgeUrl, kind)) === 401);
    }
    expect((await get(edgeUrl, '/api/client/features', tokens.client)).status).toBe(200);
    expect((await get(edgeUrl, '/api/frontend', tokens.frontend)).status).toBe(200);
  }, 150_000);

  it('serves a chained replica, which follows a change made in Unleash', async () => {
    const chained = await startEdge(edgeUrl);
    const sdk = await nodeSdk(chained, 'polling');
    expect(sdk.isEnabled(flags.on)).toBe(true);
    await admin('POST', `${envPath(flags.on)}/off`);
    await within(20_000, () => !sdk.isEnabled(flags.on));
    await admin('POST', `${envPath(flags.on)}/on`);
    await within(20_000, () => sdk.isEnabled(flags.on));
  });

  it('keeps the SDKs served while Unleash is away, and recovers when it returns', async () => {
    const sdk = await nodeSdk(edgeUrl, 'polling');
    const health = async () => (await (await fetch(`${edgeUrl}/health`)).json()) as { upstream: string };
    expect((await health()).upstream).toBe('connected');
    const before = await (await get(edgeUrl, '/api/client/features', tokens.client)).json();
    await proxy?.cut('refuse');
    try {
      await within(15_000, async () => (await health()).upstream === 'unreachable');
      const during = await get(edgeUrl, '/api/client/features', tokens.client);
      expect(during.status).toBe(200);
      expect((await during.json()).features).toEqual(before.features);
      expect((await fetch(`${edgeUrl}/internal-backstage/ready`)).status).toBe(200);
      expect(sdk.isEnabled(flags.on)).toBe(true);
      // Changed in Unleash while the replica cannot see it.
      await admin('POST', `${envPath(flags.on)}/off`);
    } finally {
      await proxy?.restore();
    }
    await within(20_000, async () => (await health()).upstream === 'connected');
    await within(20_000, () => !sdk.isEnabled(flags.on));
    await admin('POST', `${envPath(flags.on)}/on`);
  }, 60_000);
});
