import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemStorageProvider, startUnleash } from 'unleash-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { within } from '../../test/within.js';
import { loadConfig, testConfig } from '../config.js';
import { type EdgeApp, openEdge } from './edge.main.js';
import { parseBootstrap } from './edge.offline.js';

/**
 * Offline edge mode (Unleash Edge's `offline`): no upstream, the flags of a bootstrap file served
 * to the listed tokens, the file read again on an interval.
 */
const folder = mkdtempSync(join(tmpdir(), 'edge-offline-'));
const file = join(folder, 'bootstrap.json');
const CLIENT = '*:production.offline-client-token-0123456789';
const FRONTEND = 'kiosk-frontend';
let edge: EdgeApp;
let url: string;

/** Written whole and renamed over, as a deploy would: a reader never sees half a file. */
function write(content: unknown) {
  writeFileSync(`${file}.tmp`, typeof content === 'string' ? content : JSON.stringify(content));
  renameSync(`${file}.tmp`, file);
}

const get = (path: string, secret: string) => fetch(url + path, { headers: { authorization: secret } });

beforeAll(async () => {
  write({ checkout: { enabled: true, variant: 'blue' }, legacy: { enabled: false } });
  // Configured with Unleash Edge's own names, as its offline container is.
  const opened = await openEdge({
    ...testConfig(),
    ...loadConfig({
      BOOTSTRAP_FILE: file,
      CLIENT_TOKENS: CLIENT,
      FRONTEND_TOKENS: FRONTEND,
      RELOAD_INTERVAL: '0.1',
    }),
    LOG_LEVEL: 'silent',
  });
  edge = opened.app;
  await edge.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(edge.server.address() as AddressInfo).port}`;
  await opened.configured;
});

afterAll(async () => {
  await edge?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('offline mode', () => {
  it('serves the simple bootstrap form to backend and frontend SDKs, and only to the listed tokens', async () => {
    const client = await get('/api/client/features', CLIENT);
    expect(client.status).toBe(200);
    const features = (await client.json()).features;
    expect(features.map((f: { name: string; enabled: boolean }) => [f.name, f.enabled])).toEqual([
      ['checkout', true],
      ['legacy', false],
    ]);
    const sdk = await startUnleash({
      url: `${url}/api/`,
      appName: 'offline-test',
      customHeaders: { Authorization: CLIENT },
      disableMetrics: true,
      refreshInterval: 3_600_000,
      storageProvider: new InMemStorageProvider(),
      skipInstanceCountWarning: true,
    });
    try {
      expect(sdk.isEnabled('checkout')).toBe(true);
      expect(sdk.getVariant('checkout', { userId: 'u1' })).toMatchObject({ name: 'blue', enabled: true });
      expect(sdk.isEnabled('legacy')).toBe(false);
    } finally {
      sdk.destroy();
    }
    const frontend = await (await get('/api/frontend?userId=u1', FRONTEND)).json();
    expect(frontend.toggles.map((t: { name: string }) => t.name)).toEqual(['checkout']);
    expect((await get('/api/client/features', 'someone-else')).status).toBe(401);
    expect((await get('/api/frontend', CLIENT)).status).toBe(403);
    expect((await get('/api/client/features', FRONTEND)).status).toBe(403);
    expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ mode: 'offline', ready: true });
    expect(await (await fetch(`${url}/internal-backstage/ready`)).json()).toEqual({ status: 'READY' });
  });

  it('reads the file again on its interval, and keeps the last good one while the file is broken', async () => {
    write({
      version: 2,
      features: [
        {
          name: 'checkout',
          project: 'default',
          enabled: true,
          strategies: [
            {
              name: 'default',
              constraints: [{ contextName: 'userId', operator: 'IN', values: ['vip'] }],
            },
          ],
        },
      ],
    });
    const enabledFor = async (userId: string) =>
      (await (await get(`/api/frontend?userId=${userId}`, FRONTEND)).json()).toggles.length === 1;
    await within(5_000, async () => !(await enabledFor('u1')));
    expect(await enabledFor('vip')).toBe(true);
    write('{"checkout": {"enab');
    await within(5_000, async () => (await (await fetch(`${url}/health`)).json()).upstream === 'unreachable');
    expect(await enabledFor('vip')).toBe(true);
    expect(await enabledFor('u1')).toBe(false);
  });

  it('refuses to start without a readable file or a client token, and beside an upstream', async () => {
    const start = (env: Record<string, string>) => openEdge({ ...testConfig(), ...loadConfig(env) });
    await expect(
      start({ EDGE_BOOTSTRAP_FILE: join(folder, 'none.json'), EDGE_CLIENT_TOKENS: 'x' }),
    ).rejects.toThrow(/EDGE_BOOTSTRAP_FILE/);
    await expect(start({ EDGE_BOOTSTRAP_FILE: file })).rejects.toThrow(/EDGE_CLIENT_TOKENS/);
    expect(() => loadConfig({ UPSTREAM_URL: 'http://upstream:4242', EDGE_BOOTSTRAP_FILE: file })).toThrow(
      /not both/,
    );
    // Edge's BOOTSTRAP_FILE alone (no CLIENT_TOKENS) is not taken as asking for offline mode.
    expect(loadConfig({ BOOTSTRAP_FILE: file }).EDGE_BOOTSTRAP_FILE).toBeUndefined();
  });

  it('reads both bootstrap forms as Unleash Edge does, and says what is wrong with others', () => {
    expect(parseBootstrap('{"a": {"enabled": true}}').features).toEqual([
      {
        name: 'a',
        project: 'default',
        enabled: true,
        strategies: [{ name: 'default', parameters: {}, constraints: [] }],
        variants: [],
      },
    ]);
    expect(parseBootstrap('{"features": [{"name": "b", "enabled": false}]}').features).toEqual([
      { name: 'b', enabled: false },
    ]);
    expect(() => parseBootstrap('[]')).toThrow(/JSON object/);
    expect(() => parseBootstrap('{"a": {"on": true}}')).toThrow(/"a" needs/);
    expect(() => parseBootstrap('{"features": [{"enabled": true}]}')).toThrow(/features\[0\]/);
    expect(() => parseBootstrap('{"a": {"enabled": true, "variant": 3}}')).toThrow(/variant/);
  });
});
