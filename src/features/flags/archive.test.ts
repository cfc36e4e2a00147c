import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';

const k = flagTests();
const { NO_AUTH, sql, send, flagUrl, newFlag } = k;

describe('archive, revive and delete', () => {
  it('DELETE archives: 202, archivedAt, stage archived, feature-archived; revive returns to the prior stage', async () => {
    const name = await newFlag();
    await sql(
      `UPDATE feature_lifecycles SET created_at = now() - interval '1 hour' WHERE feature_name = $1`,
      [name],
    );
    await sql(`INSERT INTO feature_lifecycles (feature_name, stage) VALUES ($1, 'live')`, [name]);
    const res = await send('DELETE', flagUrl(name));
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
    const flag = (await k.a.getFlag('default', name)).json();
    expect(flag.archived).toBe(true);
    expect(Date.parse(flag.archivedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(flag.lifecycle.stage).toBe('archived');
    const events = (await k.a.flagEvents(name)).events;
    expect(events[0]).toMatchObject({
      type: 'feature-archived',
      data: { name, archived: true },
      preData: { name, archived: false, archivedAt: null },
    });

    const again = await send('DELETE', flagUrl(name));
    expect(again.statusCode).toBe(404);
    expect(again.json().name).toBe('NotFoundError');

    const revived = await k.t.request({ method: 'POST', url: `/api/admin/archive/revive/${name}` });
    expect(revived.statusCode).toBe(200);
    expect(revived.body).toBe('');
    const back = (await k.a.getFlag('default', name)).json();
    expect(back).toMatchObject({ archived: false, archivedAt: null, lifecycle: { stage: 'live' } });
    expect((await k.a.flagEvents(name)).events[0]).toMatchObject({
      type: 'feature-revived',
      data: { archived: false },
      preData: { archived: true },
    });
  });

  it('a revived flag comes back off in every environment, whichever way it is revived (as Unleash)', async () => {
    const revive = {
      route: (name: string) => k.t.request({ method: 'POST', url: `/api/admin/archive/revive/${name}` }),
      put: (name: string) => k.t.send('PUT', flagUrl(name), { archived: false }),
      patch: (name: string) =>
        k.t.send('PATCH', flagUrl(name), [{ op: 'replace', path: '/archived', value: false }]),
    };
    for (const [how, run] of Object.entries(revive)) {
      const name = await newFlag();
      for (const env of ['development', 'production']) {
        const on = await send('POST', `${flagUrl(name)}/environments/${env}/on`);
        expect(on.statusCode, how).toBe(200);
      }
      expect((await send('DELETE', flagUrl(name))).statusCode, how).toBe(202);
      expect((await run(name)).statusCode, how).toBe(200);
      const back = (await k.a.getFlag('default', name)).json();
      expect(back.archived, how).toBe(false);
      expect(
        back.environments.map((e: { name: string; enabled: boolean }) => [e.name, e.enabled]),
        how,
      ).toEqual([
        ['development', false],
        ['production', false],
      ]);
    }
  });

  it('archive: 404 for another project or unknown flag, 401 without token; nothing recorded', async () => {
    const name = await newFlag();
    const before = await k.a.count('events');
    expect((await send('DELETE', flagUrl(name, 'other'))).statusCode).toBe(404);
    expect((await send('DELETE', flagUrl(uniqueName()))).statusCode).toBe(404);
    expect((await send('DELETE', flagUrl(name), undefined, NO_AUTH)).statusCode).toBe(401);
    expect(await k.a.count('events')).toBe(before);
    expect(await k.a.count('features', 'name = $1 AND archived_at IS NULL', [name])).toBe(1);
  });

  it('archive refuses a parent flag with 403 InvalidOperationError and leaves it', async () => {
    const parent = await newFlag();
    const child = await newFlag();
    await sql(`INSERT INTO feature_dependencies (parent, child) VALUES ($1, $2)`, [parent, child]);
    const before = await k.a.count('events');
    const res = await send('DELETE', flagUrl(parent));
    expect(res.statusCode).toBe(403);
    expect(res.json().name).toBe('InvalidOperationError');
    expect(await k.a.count('events')).toBe(before);
    expect(await k.a.count('features', 'name = $1 AND archived_at IS NULL', [parent])).toBe(1);
  });

  it('revive: 400 for an active flag, 404 for an unknown one, 401 without token', async () => {
    const name = await newFlag();
    const before = await k.a.count('events');
    const active = await send('POST', `/api/admin/archive/revive/${name}`);
    expect(active.statusCode).toBe(400);
    expect(active.json().name).toBe('ValidationError');
    expect((await send('POST', `/api/admin/archive/revive/${uniqueName()}`)).statusCode).toBe(404);
    expect((await send('POST', `/api/admin/archive/revive/${name}`, undefined, NO_AUTH)).statusCode).toBe(
      401,
    );
    expect(await k.a.count('events')).toBe(before);
  });

  it('DELETE /api/admin/archive/:featureName deletes an archived flag for good and records feature-deleted', async () => {
    const name = await newFlag();
    await send('DELETE', flagUrl(name));
    const res = await send('DELETE', `/api/admin/archive/${name}`);
    expect(res.statusCode).toBe(200);
    expect(await k.a.count('features', 'name = $1', [name])).toBe(0);
    expect(await k.a.count('feature_environments', 'feature_name = $1', [name])).toBe(0);
    const events = (await k.a.flagEvents(name)).events;
    expect(events[0]).toMatchObject({ type: 'feature-deleted', preData: { name, archived: true } });
    expect((await send('DELETE', `/api/admin/archive/${name}`)).statusCode).toBe(404);
  });

  it('permanent delete refuses an active flag (400) and leaves it; 401 without token', async () => {
    const name = await newFlag();
    const before = await k.a.count('events');
    const res = await send('DELETE', `/api/admin/archive/${name}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect((await send('DELETE', `/api/admin/archive/${name}`, undefined, NO_AUTH)).statusCode).toBe(401);
    expect(await k.a.count('features', 'name = $1', [name])).toBe(1);
    expect(await k.a.count('events')).toBe(before);
  });

  it('GET /api/admin/archive/features[/:projectId] lists archived flags, deprecated', async () => {
    const name = await newFlag();
    const active = await newFlag();
    await send('DELETE', flagUrl(name));
    const res = await send('GET', '/api/admin/archive/features/default');
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    const body = res.json();
    expect(body.version).toBe(1);
    const found = body.features.find((f: { name: string }) => f.name === name);
    expect(found).toMatchObject({
      name,
      archived: true,
      project: 'default',
      lifecycle: { stage: 'archived' },
    });
    expect(body.features.some((f: { name: string }) => f.name === active)).toBe(false);
    const all = await send('GET', '/api/admin/archive/features');
    expect(all.json().features.some((f: { name: string }) => f.name === name)).toBe(true);
    expect((await send('GET', '/api/admin/archive/features/nope')).json()).toEqual({
      version: 1,
      features: [],
    });
    expect((await send('GET', '/api/admin/archive/features', undefined, NO_AUTH)).statusCode).toBe(401);
  });
});

describe('POST /api/admin/projects/:p/revive and …/delete (several archived flags)', () => {
  it('revives and deletes archived flags of the project in one go, all or nothing', async () => {
    const [a1, a2, a3, active] = [await newFlag(), await newFlag(), await newFlag(), await newFlag()];
    for (const name of [a1, a2, a3]) await send('DELETE', flagUrl(name));
    // One flag not archived: nothing is revived.
    const mixed = await send('POST', '/api/admin/projects/default/revive', { features: [a1, active] });
    expect(mixed.statusCode).toBe(400);
    expect((await send('GET', flagUrl(a1))).json().archived).toBe(true);
    expect((await send('POST', '/api/admin/projects/other/revive', { features: [a1] })).statusCode).toBe(404);

    expect(
      (await send('POST', '/api/admin/projects/default/revive', { features: [a1, a2] })).statusCode,
    ).toBe(200);
    expect((await send('GET', flagUrl(a1))).json().archived).toBe(false);
    expect((await send('GET', flagUrl(a2))).json().archived).toBe(false);

    expect(
      (await send('POST', '/api/admin/projects/default/delete', { features: [a3, a1] })).statusCode,
    ).toBe(400);
    expect((await send('GET', flagUrl(a3))).statusCode).toBe(200);
    expect((await send('POST', '/api/admin/projects/default/delete', { features: [a3] })).statusCode).toBe(
      200,
    );
    expect((await send('GET', flagUrl(a3))).statusCode).toBe(404);
    expect((await send('POST', '/api/admin/projects/default/delete', { features: [] })).statusCode).toBe(400);
  });
});
