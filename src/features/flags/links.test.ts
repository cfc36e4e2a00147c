import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

const k = flagTests();
const { NO_AUTH, send, flagUrl, newFlag } = k;
const put = (url: string, payload: object, headers = {}) =>
  k.t.request({ method: 'PUT', url, payload, headers });
const linksOf = async (name: string) => (await k.a.getFlag('default', name)).json().links;

describe('flag links', () => {
  it('add, update and delete: 204, shown on the flag, each with its event', async () => {
    const name = await newFlag();
    expect(await linksOf(name)).toEqual([]);
    const added = await send('POST', `${flagUrl(name)}/link`, { url: 'example.com/issue/1', title: 'Issue' });
    expect(added.statusCode).toBe(204);
    expect(added.body).toBe('');
    await send('POST', `${flagUrl(name)}/link`, { url: 'https://second.example' });
    const links = await linksOf(name);
    expect(links).toEqual([
      {
        id: expect.stringMatching(/^[0-9A-Z]{26}$/),
        url: 'https://example.com/issue/1',
        title: 'Issue',
        feature: name,
      },
      { id: expect.any(String), url: 'https://second.example', title: null, feature: name },
    ]);
    const id = links[0].id;
    expect(await k.a.lastEvent('feature-link-added')).toMatchObject({
      feature_name: name,
      project: 'default',
      data: { id: links[1].id, url: 'https://second.example', title: null },
    });

    expect(
      (await put(`${flagUrl(name)}/link/${id}`, { url: 'http://changed.example/x', title: 'New' }))
        .statusCode,
    ).toBe(204);
    expect((await linksOf(name))[0]).toMatchObject({ id, url: 'http://changed.example/x', title: 'New' });
    expect(await k.a.lastEvent('feature-link-updated')).toMatchObject({
      feature_name: name,
      data: { id, url: 'http://changed.example/x', title: 'New' },
      pre_data: { id, url: 'https://example.com/issue/1', title: 'Issue' },
    });

    const removed = await send('DELETE', `${flagUrl(name)}/link/${id}`);
    expect(removed.statusCode).toBe(204);
    expect((await linksOf(name)).map((l: { id: string }) => l.id)).toEqual([links[1].id]);
    expect(await k.a.lastEvent('feature-link-removed')).toMatchObject({
      feature_name: name,
      pre_data: { id, url: 'http://changed.example/x' },
    });
    expect((await send('DELETE', `${flagUrl(name)}/link/${id}`)).statusCode).toBe(404);
  });

  it('400 for a bad URL or body, 404 for an unknown flag, project or link; nothing recorded', async () => {
    const name = await newFlag();
    const before = await k.a.count('events');
    for (const body of [
      { url: 'javascript:alert(1)' },
      { url: 'https://' },
      { title: 'no url' },
      { url: 'x', title: 't'.repeat(256) },
    ]) {
      const res = await send('POST', `${flagUrl(name)}/link`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    expect(
      (await send('POST', `${flagUrl(uniqueName())}/link`, { url: 'https://a.example' })).statusCode,
    ).toBe(404);
    expect(
      (await send('POST', `${flagUrl(name, 'other')}/link`, { url: 'https://a.example' })).statusCode,
    ).toBe(404);
    expect((await put(`${flagUrl(name)}/link/NOPE`, { url: 'https://a.example' })).statusCode).toBe(404);
    expect((await send('DELETE', `${flagUrl(name)}/link/NOPE`)).statusCode).toBe(404);
    expect(
      (await send('POST', `${flagUrl(name)}/link`, { url: 'https://a.example' }, NO_AUTH)).statusCode,
    ).toBe(401);
    expect(await k.a.count('events')).toBe(before);
    expect(await k.a.count('feature_links', 'feature_name = $1', [name])).toBe(0);
  });

  it('a link of another flag is a 404 through this flag', async () => {
    const [a, b] = [await newFlag(), await newFlag()];
    await send('POST', `${flagUrl(a)}/link`, { url: 'https://a.example' });
    const id = (await linksOf(a))[0].id;
    expect((await send('DELETE', `${flagUrl(b)}/link/${id}`)).statusCode).toBe(404);
    expect(await linksOf(a)).toHaveLength(1);
  });

  it('at most 10 links per flag: the 11th is a 403', async () => {
    const name = await newFlag();
    for (let i = 0; i < 10; i++) {
      expect((await send('POST', `${flagUrl(name)}/link`, { url: `https://l${i}.example` })).statusCode).toBe(
        204,
      );
    }
    const res = await send('POST', `${flagUrl(name)}/link`, { url: 'https://eleven.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json().name).toBe('InvalidOperationError');
    expect(await linksOf(name)).toHaveLength(10);
  });

  it('a Viewer may not add links (403); deleting the flag for good removes its links', async () => {
    const name = await newFlag();
    const viewer = await createUser(k.t, 'Viewer');
    const headers = asUser(await login(k.t, viewer.username));
    const res = await send('POST', `${flagUrl(name)}/link`, { url: 'https://a.example' }, headers);
    expect(res.statusCode).toBe(403);
    expect(res.json().name).toBe('NoAccessError');
    await send('POST', `${flagUrl(name)}/link`, { url: 'https://a.example' });
    expect((await send('DELETE', flagUrl(name))).statusCode).toBe(202);
    expect((await send('DELETE', `/api/admin/archive/${name}`)).statusCode).toBe(200);
    expect(await k.a.count('feature_links', 'feature_name = $1', [name])).toBe(0);
  });
});
