import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

let t: TestApp;
let a: ReturnType<typeof api>;
const project = 'tokens-p';
const url = `/api/admin/projects/${project}/api-tokens`;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
  expect((await t.send('POST', '/api/admin/projects', { id: project, name: 'Tokens' })).statusCode).toBe(201);
});
afterAll(() => t.close());

const member = async (roleId: number | null) => {
  const user = await createUser(t, 'Viewer');
  if (roleId !== null) {
    const res = await t.send('POST', `/api/admin/projects/${project}/access`, {
      roles: [roleId],
      users: [{ id: user.id }],
    });
    expect(res.statusCode).toBeLessThan(300);
  }
  return asUser(await login(t, user.username));
};

describe('project API tokens', () => {
  it('create (201, secret once), list without secrets, use for the project only, delete; events recorded', async () => {
    const flag = uniqueName();
    await a.createFlag(project, { name: flag });
    await a.createFlag('default', { name: uniqueName() });
    const created = await t.send('POST', url, {
      tokenName: 'svc',
      type: 'backend',
      environment: 'production',
    });
    expect(created.statusCode).toBe(201);
    const token = created.json();
    expect(token).toMatchObject({
      tokenName: 'svc',
      type: 'client',
      environment: 'production',
      project,
      projects: [project],
    });
    expect(token.secret).toMatch(new RegExp(`^${project}:production\\.[0-9a-f]{56}$`));
    expect(await a.lastEvent('api-token-created')).toMatchObject({
      project,
      data: { tokenName: 'svc', projects: [project] },
    });
    expect(JSON.stringify(await a.lastEvent('api-token-created'))).not.toContain(token.secret);

    // An instance-wide token and one for several projects are not this project's tokens.
    await t.send('POST', '/api/admin/api-tokens', { tokenName: 'all', type: 'client' });
    const several = (
      await t.send('POST', '/api/admin/api-tokens', {
        tokenName: 'two',
        type: 'client',
        projects: [project, 'default'],
      })
    ).json();
    const listed = (await t.send('GET', url)).json().tokens;
    expect(listed.map((x: { tokenName: string }) => x.tokenName)).toEqual(['svc']);
    expect(listed[0].secret).not.toBe(token.secret);
    expect(listed[0].secure).toBe(true);

    const client = await t.send('GET', '/api/client/features', undefined, { authorization: token.secret });
    expect(client.statusCode).toBe(200);
    expect(client.json().features.map((f: { name: string }) => f.name)).toEqual([flag]);

    const other = await t.send('DELETE', `${url}/${encodeURIComponent(several.secret)}`);
    expect(other.statusCode).toBe(404);
    expect(await a.count('api_tokens', 'token_name = $1', ['two'])).toBe(1);

    expect((await t.send('DELETE', `${url}/${encodeURIComponent(token.secret)}`)).statusCode).toBe(200);
    expect((await t.send('GET', url)).json().tokens).toEqual([]);
    expect(await a.lastEvent('api-token-deleted')).toMatchObject({ project, pre_data: { tokenName: 'svc' } });
    expect(
      (await t.send('GET', '/api/client/features', undefined, { authorization: token.secret })).statusCode,
    ).toBe(401);
    // Deleting what does not exist: 200, as Unleash.
    const events = await a.count('events');
    expect((await t.send('DELETE', `${url}/${encodeURIComponent(token.secret)}`)).statusCode).toBe(200);
    expect(await a.count('events')).toBe(events);
  });

  it('400 for an admin token or a missing name, 404 for an unknown project or environment', async () => {
    const before = await a.count('api_tokens');
    for (const body of [
      { tokenName: 'x', type: 'admin' },
      { type: 'client' },
      { tokenName: 'x', type: 'client', projects: ['*'], extra: 1 },
    ]) {
      const res = await t.send('POST', url, body);
      if ('projects' in body) {
        // Unknown properties are dropped: the token is still for this project only.
        expect(res.json().projects).toEqual([project]);
        await t.send('DELETE', `${url}/${encodeURIComponent(res.json().secret)}`);
        continue;
      }
      expect(res.statusCode).toBe(400);
    }
    expect(
      (
        await t.send('POST', `/api/admin/projects/${uniqueName('p')}/api-tokens`, {
          tokenName: 'x',
          type: 'client',
        })
      ).statusCode,
    ).toBe(404);
    expect((await t.send('GET', `/api/admin/projects/${uniqueName('p')}/api-tokens`)).statusCode).toBe(404);
    expect(
      (await t.send('POST', url, { tokenName: 'x', type: 'client', environment: 'nowhere' })).statusCode,
    ).toBe(404);
    expect(await a.count('api_tokens')).toBe(before);
  });

  it('project Members and Owners manage the tokens of their project; a Viewer or a Reader may not', async () => {
    const memberHeaders = await member(5);
    const created = await t.send('POST', url, { tokenName: 'mine', type: 'frontend' }, memberHeaders);
    expect(created.statusCode).toBe(201);
    expect((await t.send('GET', url, undefined, await member(4))).statusCode).toBe(200);
    const elsewhere = await t.send(
      'POST',
      '/api/admin/projects/default/api-tokens',
      { tokenName: 'no', type: 'client' },
      memberHeaders,
    );
    expect(elsewhere.statusCode).toBe(403);
    for (const headers of [await member(null), await member(6)]) {
      for (const [method, path] of [
        ['GET', url],
        ['POST', url],
        ['DELETE', `${url}/${encodeURIComponent(created.json().secret)}`],
      ] as const) {
        const res = await t.send(
          method,
          path,
          method === 'POST' ? { tokenName: 'no', type: 'client' } : undefined,
          headers,
        );
        expect(res.statusCode, `${method} ${path}`).toBe(403);
        expect(res.json().name).toBe('NoAccessError');
      }
    }
    expect(
      (
        await t.send(
          'DELETE',
          `${url}/${encodeURIComponent(created.json().secret)}`,
          undefined,
          memberHeaders,
        )
      ).statusCode,
    ).toBe(200);
  });
});
