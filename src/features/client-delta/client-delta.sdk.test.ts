import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { InMemStorageProvider, startUnleash, type Unleash } from 'unleash-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, openTwoInstances, uniqueName } from '../../../test/harness.js';
import { buildApp } from '../../app.js';
import { testConfig } from '../../config.js';

/**
 * The real Node SDK (unleash-client 6.12) in its streaming mode, with polling out of the picture
 * (an hour's refresh interval): it streams from one instance while the admin changes go through
 * another on the same database, and each change shows in its answers within a second.
 */
let writer: FastifyInstance;
let reader: FastifyInstance;
let close: () => Promise<void>;
let sdk: Unleash | undefined;
const requests: string[] = [];
const project = 'default';
const ENV = 'development';
const flag = uniqueName('stream-flag');

async function admin(method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  const res = await writer.inject({
    method,
    url,
    headers: { authorization: ADMIN_TOKEN },
    ...(payload !== undefined && { payload: payload as object }),
  });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.body ? res.json() : undefined;
}
const flagUrl = `/api/admin/projects/${project}/features/${flag}`;
const envUrl = `${flagUrl}/environments/${ENV}`;

beforeAll(async () => {
  const instances = await openTwoInstances();
  close = instances.close;
  writer = await buildApp({ database: instances.first, config: testConfig(), now: () => new Date() });
  reader = await buildApp({ database: instances.second, config: testConfig(), now: () => new Date() });
  await Promise.all([writer.ready(), reader.ready()]);
  await admin('POST', `/api/admin/projects/${project}/features`, { name: flag });
  const token = await admin('POST', '/api/admin/api-tokens', {
    tokenName: 'streaming-sdk',
    type: 'client',
    environment: ENV,
    projects: [project],
  });
  await reader.listen({ port: 0, host: '127.0.0.1' });
  reader.server.on('request', (request: IncomingMessage) =>
    requests.push(`${request.method} ${request.url}`),
  );
  const { port } = reader.server.address() as AddressInfo;
  sdk = await startUnleash({
    url: `http://127.0.0.1:${port}/api/`,
    appName: 'streaming-sdk',
    customHeaders: { Authorization: token.secret },
    refreshInterval: 3_600_000,
    disableMetrics: true,
    experimentalMode: { type: 'streaming' },
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
  });
}, 60_000);

afterAll(async () => {
  sdk?.destroy();
  await reader?.close();
  await writer?.close();
  await close?.();
});

/** Milliseconds until the SDK's answer is `expected` (fails past 1 s). */
async function within1s(answer: () => boolean, expected: boolean): Promise<number> {
  const started = Date.now();
  while (answer() !== expected) {
    if (Date.now() - started > 1000) throw new Error(`the SDK still answers ${!expected} after 1 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now() - started;
}

it('follows admin changes made through another instance within a second, without polling', async () => {
  const client = sdk as Unleash;
  expect(client.isEnabled(flag)).toBe(false);

  await admin('POST', `${envUrl}/on`);
  await within1s(() => client.isEnabled(flag), true);

  // A strategy with a segment: the segment arrives before the flag that uses it.
  const segment = await admin('POST', '/api/admin/segments', {
    name: uniqueName('seg'),
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }],
  });
  const added = await admin('POST', `${envUrl}/strategies`, { name: 'default', segments: [segment.id] });
  // Only that strategy: enabling the environment may have given the flag a default one.
  const listed = await writer.inject({
    url: `${envUrl}/strategies`,
    headers: { authorization: ADMIN_TOKEN },
  });
  for (const strategy of listed.json() as { id: string }[]) {
    if (strategy.id !== added.id) await admin('DELETE', `${envUrl}/strategies/${strategy.id}`);
  }
  await within1s(() => client.isEnabled(flag, { userId: 'u2' }), false);
  expect(client.isEnabled(flag, { userId: 'u1' })).toBe(true);

  await admin('PUT', `/api/admin/segments/${segment.id}`, {
    name: segment.name,
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['u2'] }],
  });
  await within1s(() => client.isEnabled(flag, { userId: 'u2' }), true);
  expect(client.isEnabled(flag, { userId: 'u1' })).toBe(false);

  await admin('DELETE', flagUrl);
  await within1s(() => client.isEnabled(flag, { userId: 'u2' }), false);
  expect(client.getFeatureToggleDefinition(flag)).toBeUndefined();

  // Everything came over the one stream: no polling of the full or the delta endpoint.
  expect(requests.filter((r) => r.startsWith('GET /api/client/streaming'))).toHaveLength(1);
  expect(requests.filter((r) => /\/api\/client\/(features|delta)/.test(r))).toEqual([]);
});
