import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';

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
});
