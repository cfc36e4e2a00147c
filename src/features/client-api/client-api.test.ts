import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { ADMIN_TOKEN, startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

let t: TestApp;
let sql: ReturnType<typeof configSql>;
let token: string;
const project = uniqueName('client-proj');
let flag: string;
let segmentId: number;
const elsewhere = uniqueName('elsewhere');

beforeAll(async () => {
  t = await startTestApp();
  sql = configSql(t);
  await t.database.session(async (run) => {
    await run('INSERT INTO projects (id, name) VALUES ($1, $1)', [project]);
    await run(
      `INSERT INTO project_environments (project_id, environment_name) VALUES ($1, 'development'), ($1, 'production')`,
      [project],
    );
  });
  flag = uniqueName('client-flag');
  await api(t).createFlag(project, { name: flag, description: 'd' });
  await api(t).createFlag('default', { name: elsewhere });
  await sql.enable(flag, 'development');
  segmentId = await sql.addSegment(uniqueName('seg'), [
    { contextName: 'userId', operator: 'IN', values: ['u1'] },
  ]);
  await sql.addStrategy(flag, 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '50', stickiness: 'default', groupId: flag },
    constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
    segments: [segmentId],
    sortOrder: 1,
  });
  await sql.addStrategy(flag, 'development', { name: 'default', disabled: true, sortOrder: 0 });
  token = await sql.addToken('client', [project], 'development');
});
afterAll(() => t.close());

const features = (headers: Record<string, string | undefined> = {}) =>
  t.request({ method: 'GET', url: '/api/client/features', headers: { authorization: token, ...headers } });

describe('GET /api/client/features', () => {
  it("serves the token's projects in its environment, without disabled strategies", async () => {
    const res = await features({ 'unleash-client-spec': '5.1.0' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.version).toBe(2);
    expect(body.features.map((f: { name: string }) => f.name)).toEqual([flag]);
    expect(body.features[0]).toEqual({
      name: flag,
      type: 'release',
      description: 'd',
      project,
      enabled: true,
      stale: false,
      impressionData: false,
      strategies: [
        {
          name: 'flexibleRollout',
          constraints: [{ contextName: 'appName', operator: 'IN', values: ['web'] }],
          parameters: { rollout: '50', stickiness: 'default', groupId: flag },
          segments: [segmentId],
          variants: [],
        },
      ],
      variants: [],
    });
    expect(body.segments).toEqual([
      expect.objectContaining({
        id: segmentId,
        constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }],
      }),
    ]);
  });

  it('sends the same payload gzip-compressed to clients that accept it', async () => {
    const plain = await features({ 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await features({ 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    expect((await features({ 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    for (const answer of [plain, zipped]) expect(answer.headers.vary).toBe('Accept-Encoding');
  });

  it('gives the gzip and the plain representation each its own validator (RFC 9110)', async () => {
    const plain = await features({ 'accept-encoding': 'identity' });
    const zipped = await features({ 'accept-encoding': 'gzip, deflate' });
    const [plainTag, zippedTag] = [plain.headers.etag as string, zipped.headers.etag as string];
    expect(plainTag).toMatch(/^"[\w-]+"$/);
    expect(zippedTag).toMatch(/^"[\w-]+"$/);
    expect(zippedTag).not.toBe(plainTag);
    // Each validates its own representation only.
    expect((await features({ 'accept-encoding': 'gzip', 'if-none-match': zippedTag })).statusCode).toBe(304);
    expect((await features({ 'accept-encoding': 'identity', 'if-none-match': plainTag })).statusCode).toBe(
      304,
    );
    const crossed = await features({ 'accept-encoding': 'identity', 'if-none-match': zippedTag });
    expect(crossed.statusCode).toBe(200);
    expect(crossed.headers.etag).toBe(plainTag);
    const other = await features({ 'accept-encoding': 'gzip', 'if-none-match': plainTag });
    expect(other.statusCode).toBe(200);
    expect(other.headers['content-encoding']).toBe('gzip');
  });

  it('inlines segment constraints for SDKs without segment support', async () => {
    const body = (await features({ 'unleash-client-spec': undefined })).json();
    expect(body.segments).toBeUndefined();
    expect(
      body.features[0].strategies[0].constraints.map((c: { contextName: string }) => c.contextName),
    ).toEqual(['userId', 'appName']);
  });

  it('answers 304 for the current ETag and a new ETag after a change (within a second)', async () => {
    const first = await features();
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const notModified = await features({ 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers['content-length'] ?? '0').toBe('0');
    expect((await features({ 'if-none-match': `W/${etag}, "other"` })).statusCode).toBe(304);
    await sql.enable(flag, 'development', false);
    const started = Date.now();
    let changed = first;
    while (Date.now() - started < 1000) {
      changed = await features({ 'if-none-match': etag });
      if (changed.statusCode === 200) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json().features[0].enabled).toBe(false);
    await sql.enable(flag, 'development', true);
  });

  it('serialises flags as JSON.stringify would, `$` sequences and non-ASCII text included, after changes too', async () => {
    const name = uniqueName('dollar');
    const description = 'costs $& and $1, $$ (über 5 €, ✓)';
    await api(t).createFlag(project, { name, description });
    const started = Date.now();
    let res = await features();
    while (!res.body.includes(name) && Date.now() - started < 2000) {
      await new Promise((r) => setTimeout(r, 20));
      res = await features();
    }
    const body = res.body;
    // The bytes sent are the UTF-8 encoding of the text, and Content-Length counts bytes.
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(body));
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const parsed = JSON.parse(body);
    expect(JSON.stringify(parsed)).toBe(body);
    expect(parsed.features.find((f: { name: string }) => f.name === name).description).toBe(description);
  });

  it('keeps the ETag (304) when a write touches neither its environment nor its projects', async () => {
    const other = uniqueName('other-flag');
    await api(t).createFlag('default', { name: other });
    const first = await features();
    const etag = first.headers.etag as string;
    const revision = first.json().meta.revisionId as number;
    // Writes in another project, and to the token's own flag in another environment.
    const enable = await t.send(
      'POST',
      `/api/admin/projects/default/features/${other}/environments/development/on`,
    );
    expect(enable.statusCode).toBe(200);
    await sql.enable(flag, 'production');
    // The change is visible (a new revision) once the snapshot has moved past it; the ETag stays.
    const started = Date.now();
    let seen = revision;
    while (seen === revision && Date.now() - started < 2000) {
      seen = (await features()).json().meta.revisionId;
      if (seen === revision) await new Promise((r) => setTimeout(r, 20));
    }
    expect(seen).toBeGreaterThan(revision);
    const again = await features({ 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.headers.etag).toBe(etag);
    await sql.enable(flag, 'production', false);
  });

  it('scopes by environment: the production token sees the flag off', async () => {
    const prod = await sql.addToken('client', ['*'], 'production');
    // SDKs see a change within a second (the test before turned production on and off again).
    const started = Date.now();
    let body = (await features({ authorization: prod })).json();
    const mine = () => body.features.find((f: { name: string }) => f.name === flag);
    while (mine().enabled && Date.now() - started < 1000) {
      await new Promise((r) => setTimeout(r, 20));
      body = (await features({ authorization: prod })).json();
    }
    expect(mine()).toMatchObject({
      enabled: false,
      strategies: [],
    });
    expect(body.features.length).toBeGreaterThan(1);
  });

  it('serves one flag as the payload shows it, and 404 for a flag of another project or none', async () => {
    const one = (name: string, headers: Record<string, string> = {}) =>
      t.request({
        method: 'GET',
        url: `/api/client/features/${name}`,
        headers: { authorization: token, ...headers },
      });
    // Segments by id for SDKs of spec 4.2.0+, inlined for older ones: as in the whole payload.
    for (const headers of [{ 'unleash-client-spec': '5.1.0' }, {}] as Record<string, string>[]) {
      const single = await one(flag, headers);
      expect(single.statusCode).toBe(200);
      const listed = (await features(headers)).json().features.find((f: { name: string }) => f.name === flag);
      expect(single.json()).toEqual(listed);
    }
    expect((await one(flag)).json().strategies[0].constraints).toEqual([
      { contextName: 'userId', operator: 'IN', values: ['u1'] },
      { contextName: 'appName', operator: 'IN', values: ['web'] },
    ]);
    const other = await one(elsewhere);
    expect(other.statusCode).toBe(404);
    expect(other.json().name).toBe('NotFoundError');
    expect((await one('nope')).statusCode).toBe(404);
  });

  it('serves only the flags whose name starts with `namePrefix`, with its own ETag', async () => {
    const prefixed = await t.request({
      method: 'GET',
      url: `/api/client/features?namePrefix=${encodeURIComponent(flag.slice(0, -2))}`,
      headers: { authorization: token },
    });
    expect(prefixed.statusCode).toBe(200);
    expect(prefixed.json().features.map((f: { name: string }) => f.name)).toEqual([flag]);
    expect(prefixed.json().query.namePrefix).toBe(flag.slice(0, -2));
    const none = await t.request({
      method: 'GET',
      url: '/api/client/features?namePrefix=zz-no-such-',
      headers: { authorization: token },
    });
    expect(none.json().features).toEqual([]);
    expect(none.headers.etag).not.toBe(prefixed.headers.etag);
    // The whole payload's ETag is not the prefix's: no 304 for a client that switched prefixes.
    const whole = await features();
    const conditional = await t.request({
      method: 'GET',
      url: '/api/client/features?namePrefix=zz-no-such-',
      headers: { authorization: token, 'if-none-match': whole.headers.etag as string },
    });
    expect(conditional.statusCode).toBe(200);
    const again = await t.request({
      method: 'GET',
      url: '/api/client/features?namePrefix=zz-no-such-',
      headers: { authorization: token, 'if-none-match': none.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('serves the same payload to POST (as Unleash Edge does), whatever the body, never a 304', async () => {
    const whole = await features();
    for (const extra of [
      {},
      { payload: '{"context":{}}', headers: { 'content-type': 'application/json' } },
      { payload: 'anything', headers: { 'content-type': 'text/plain' } },
    ] as { payload?: string; headers?: Record<string, string> }[]) {
      const res = await t.request({
        method: 'POST',
        url: '/api/client/features',
        ...(extra.payload !== undefined && { payload: extra.payload }),
        headers: { authorization: token, 'if-none-match': whole.headers.etag as string, ...extra.headers },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(whole.json());
    }
    const refused = await t.request({
      method: 'POST',
      url: '/api/client/features',
      headers: { authorization: ADMIN_TOKEN },
    });
    expect(refused.statusCode).toBe(403);
  });

  it('refuses admin tokens (403), unknown tokens (401), and client tokens on admin routes (403)', async () => {
    expect((await features({ authorization: ADMIN_TOKEN })).statusCode).toBe(403);
    expect((await features({ authorization: 'default:development.nope' })).statusCode).toBe(401);
    expect((await features({ authorization: undefined })).statusCode).toBe(401);
    const admin = await t.request({
      method: 'GET',
      url: '/api/admin/events',
      headers: { authorization: token },
    });
    expect(admin.statusCode).toBe(403);
    expect(admin.json().name).toBe('NoAccessError');
  });
});

describe('POST /api/client/register and /api/client/metrics', () => {
  it('records the application, the instance and the hourly counts', async () => {
    const app = uniqueName('app');
    const reg = await t.request({
      method: 'POST',
      url: '/api/client/register',
      headers: { authorization: token },
      payload: {
        appName: app,
        instanceId: 'i1',
        sdkVersion: 'unleash-client-node:6.12.1',
        strategies: ['default'],
      },
    });
    expect(reg.statusCode).toBe(202);
    const start = new Date().toISOString();
    for (let i = 0; i < 2; i++) {
      const m = await t.request({
        method: 'POST',
        url: '/api/client/metrics',
        headers: { authorization: token },
        payload: {
          appName: app,
          instanceId: 'i1',
          bucket: { start, stop: start, toggles: { [flag]: { yes: 3, no: 1 } } },
        },
      });
      expect(m.statusCode).toBe(202);
    }
    const rows = await t.database.session((run) =>
      run('SELECT yes::int, no::int, environment FROM client_metrics_env WHERE app_name = $1', [app]),
    );
    expect(rows).toEqual([{ yes: 6, no: 2, environment: 'development' }]);
    const instances = await t.database.session((run) =>
      run('SELECT environment, sdk_version FROM client_instances WHERE app_name = $1', [app]),
    );
    expect(instances).toEqual([{ environment: 'development', sdk_version: 'unleash-client-node:6.12.1' }]);
  });

  it('refuses malformed metrics with 400 and stores nothing', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/client/metrics',
      headers: { authorization: token },
      payload: {
        appName: 'x',
        instanceId: 'i',
        bucket: { start: 'soon', stop: 'x', toggles: { f: { yes: -1, no: 'a' } } },
      },
    });
    expect(res.statusCode).toBe(400);
    const rows = await t.database.session((run) =>
      run(`SELECT count(*)::int AS n FROM client_metrics_env WHERE app_name = 'x'`),
    );
    expect(rows[0]?.n).toBe(0);
  });
});
