import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

const k = flagTests();
const { NO_AUTH, send, flagUrl, newFlag } = k;

describe('favorites', () => {
  it('an API token has no favorites: 200, nothing stored, no event; 404 for unknown flag', async () => {
    const name = await newFlag();
    const before = await k.a.count('events');
    const add = await k.t.request({ method: 'POST', url: `${flagUrl(name)}/favorites` });
    expect(add.statusCode).toBe(200);
    const remove = await k.t.request({ method: 'DELETE', url: `${flagUrl(name)}/favorites` });
    expect(remove.statusCode).toBe(200);
    expect(await k.a.count('favorite_features', 'feature_name = $1', [name])).toBe(0);
    expect(await k.a.count('events')).toBe(before);
    expect((await send('POST', `${flagUrl(uniqueName())}/favorites`)).statusCode).toBe(404);
    expect((await send('POST', `${flagUrl(name, 'other')}/favorites`)).statusCode).toBe(404);
    expect((await send('POST', `${flagUrl(name)}/favorites`, undefined, NO_AUTH)).statusCode).toBe(401);
  });

  it("a user's favorites show in the flag and the project list for that user only, with events", async () => {
    const name = await newFlag();
    const mine = await login(k.t, (await createUser(k.t, 'Viewer')).username);
    const theirs = await login(k.t, (await createUser(k.t, 'Viewer')).username);
    const favorite = async (cookie: string) => {
      const flag = (await k.t.send('GET', flagUrl(name), undefined, asUser(cookie))).json();
      const list = (
        await k.t.send('GET', '/api/admin/projects/default/features', undefined, asUser(cookie))
      ).json();
      const listed = list.features.find((f: { name: string }) => f.name === name);
      return [flag.favorite, listed.favorite];
    };
    expect(await favorite(mine)).toEqual([false, false]);
    expect((await k.t.send('POST', `${flagUrl(name)}/favorites`, undefined, asUser(mine))).statusCode).toBe(
      200,
    );
    expect(await favorite(mine)).toEqual([true, true]);
    expect(await favorite(theirs)).toEqual([false, false]);
    expect((await k.a.lastEvent('feature-favorited'))?.feature_name).toBe(name);
    expect((await k.t.send('DELETE', `${flagUrl(name)}/favorites`, undefined, asUser(mine))).statusCode).toBe(
      200,
    );
    expect(await favorite(mine)).toEqual([false, false]);
  });
});
