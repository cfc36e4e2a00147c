import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './api.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * An operation that takes no body accepts an empty body whatever its content type (what `fetch`
 * and many scripts send); a non-empty body of the wrong type is still a 415.
 */
let t: TestApp;
let bodyless: { method: string; path: string }[];
beforeAll(async () => {
  t = await startTestApp();
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
  bodyless = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method, op]) => ['post', 'put', 'patch', 'delete'].includes(method) && !op.requestBody)
      .map(([method]) => ({ method: method.toUpperCase(), path })),
  );
});
afterAll(() => t.close());

const EMPTY_TYPES = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/json',
  'application/x-www-form-urlencoded',
];
const emptyWith = (method: string, url: string, contentType: string) =>
  t.request({ method: method as 'POST', url, payload: '', headers: { 'content-type': contentType } });

describe('body-less operations', () => {
  it('answer an empty body of any content type as they answer no body', async () => {
    expect(bodyless.length).toBeGreaterThan(10);
    const differences: string[] = [];
    for (const { method, path } of bodyless) {
      // Unknown ids everywhere, so each call answers the same way however often it is sent.
      const url = path.replace(/\{[^}]+\}/g, 'no-such-thing');
      const plain = await t.request({ method: method as 'POST', url });
      for (const type of EMPTY_TYPES) {
        const res = await emptyWith(method, url, type);
        if (res.statusCode !== plain.statusCode) {
          differences.push(`${method} ${path} ${type}: ${res.statusCode} (no body: ${plain.statusCode})`);
        }
      }
    }
    expect(differences).toEqual([]);
  });

  it('turn a flag on and off, mark it stale, favorite, archive and revive it with text/plain empty bodies', async () => {
    const name = uniqueName();
    await api(t).createFlag('default', { name });
    const flag = `/api/admin/projects/default/features/${name}`;
    for (const [method, url, status] of [
      ['POST', `${flag}/environments/development/on`, 200],
      ['POST', `${flag}/favorites`, 200],
      ['DELETE', `${flag}/favorites`, 200],
      ['POST', `${flag}/environments/development/off`, 200],
      ['DELETE', flag, 202],
      ['POST', `/api/admin/archive/revive/${name}`, 200],
    ] as const) {
      const res = await emptyWith(method, url, 'text/plain;charset=UTF-8');
      expect(`${method} ${url} ${res.statusCode}`).toBe(`${method} ${url} ${status}`);
    }
    const events = (await api(t).flagEvents(name)).events.map((e) => e.type);
    expect(events).toEqual(
      expect.arrayContaining([
        'feature-environment-enabled',
        'feature-environment-disabled',
        'feature-archived',
        'feature-revived',
      ]),
    );
    const res = await api(t).getFlag('default', name);
    expect(res.json()).toMatchObject({ archived: false });
  });

  it('still refuse a non-empty body of another type with 415', async () => {
    const name = uniqueName();
    await api(t).createFlag('default', { name });
    const res = await t.request({
      method: 'POST',
      url: `/api/admin/projects/default/features/${name}/environments/development/on`,
      payload: 'on please',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ name: 'ContentTypeerror' });
    const flag = (await api(t).getFlag('default', name)).json() as {
      environments: { name: string; enabled: boolean }[];
    };
    expect(flag.environments.find((e) => e.name === 'development')?.enabled).toBe(false);
  });

  it('keep operations that take a body strict: an empty text/plain body is a 415', async () => {
    const res = await emptyWith('POST', '/api/admin/projects/default/features', 'text/plain');
    expect(res.statusCode).toBe(415);
  });
});
