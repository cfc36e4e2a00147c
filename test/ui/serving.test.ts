import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUi } from '../../src/platform/http/ui.js';
import { startTestApp, type TestApp } from '../harness.js';
import { ensureUiBuilt } from './browser.js';

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('serving the web UI', () => {
  let t: TestApp;
  beforeAll(async () => {
    ensureUiBuilt();
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers / with index.html, revalidated on every load, with a <base> for relative assets', async () => {
    const res = await t.send('GET', '/', undefined, { authorization: undefined, ...html });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<base href="/">');
    expect(res.body).toMatch(/src="\.\/assets\/index-[\w-]+\.js"/);
  });

  it('caches hashed assets for a year, immutable', async () => {
    const index = (await t.send('GET', '/', undefined, { authorization: undefined })).body;
    const asset = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(index)?.[1];
    const res = await t.send('GET', `/${asset}`, undefined, { authorization: undefined });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await t.send('GET', '/assets/nope-123.js', undefined, { authorization: undefined });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().name).toBe('NotFoundError');
  });

  it('falls back to index.html for client routes a browser opens, never for API paths', async () => {
    const page = await t.send('GET', '/projects/default?query=x', undefined, {
      authorization: undefined,
      ...html,
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<div id="root">');

    for (const path of [
      '/api/admin/nothing-here',
      '/auth/nothing',
      '/health/x',
      '/docs/nothing',
      '/metrics',
    ]) {
      const res = await t.send('GET', path, undefined, { authorization: undefined, ...html });
      expect(res.statusCode, path).toBe(404);
      expect(res.json(), path).toEqual({
        id: expect.any(String),
        name: 'NotFoundError',
        message: `The path you were looking for (${path}) is not available.`,
        details: [{ message: `The path you were looking for (${path}) is not available.` }],
      });
    }
    // A script (no text/html in Accept) gets the JSON 404 for unknown paths too.
    const script = await t.send('GET', '/projects/default', undefined, { authorization: undefined });
    expect(script.statusCode).toBe(404);
    expect(script.json().name).toBe('NotFoundError');
  });

  it('keeps the UI routes out of the OpenAPI document', async () => {
    const doc = (await t.send('GET', '/docs/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/assets') || p === '/*')).toEqual(
      [],
    );
  });

  it('puts the base path into <base href> so assets and API calls resolve under it', async () => {
    const app = Fastify();
    await registerUi(app, { basePath: '/flags' });
    const res = await app.inject({ method: 'GET', url: '/', headers: html });
    expect(res.body).toContain('<base href="/flags/">');
    await app.close();
  });

  it('answers / with a hint to build the UI when dist/ui is missing', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'no-ui-'));
    const app = Fastify();
    await registerUi(app, { basePath: '', dir: join(empty, 'ui') });
    const res = await app.inject({ method: 'GET', url: '/', headers: html });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('npm run build:ui');
    await app.close();
    await rm(empty, { recursive: true, force: true });
  });
});
