import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';

const k = flagTests();
const { NO_AUTH, send, flagUrl, newFlag } = k;

describe('GET /api/admin/projects/:projectId/features', () => {
  it("lists the project's active flags in Unleash's shape", async () => {
    const name = await newFlag({ description: 'listed', type: 'operational' });
    const archived = await newFlag();
    await send('DELETE', flagUrl(archived));
    const res = await send('GET', '/api/admin/projects/default/features');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.version).toBe(1);
    const names = body.features.map((f: { name: string }) => f.name);
    expect(names).toContain(name);
    expect(names).not.toContain(archived);
    expect([...names].sort()).toEqual(names);
    const item = body.features.find((f: { name: string }) => f.name === name);
    expect(Object.keys(item).sort()).toEqual(
      [
        'createdAt',
        'description',
        'environments',
        'favorite',
        'impressionData',
        'name',
        'stale',
        'tags',
        'type',
      ].sort(),
    );
    expect(item).toMatchObject({ description: 'listed', type: 'operational', stale: false, favorite: false });
    expect(item.environments[0]).toEqual({
      name: 'development',
      type: 'development',
      enabled: false,
      sortOrder: 2,
      variantCount: 0,
      lastSeenAt: null,
      hasStrategies: false,
      hasEnabledStrategies: false,
    });
  });

  it('404 for an unknown project, 401 without a token', async () => {
    const res = await send('GET', '/api/admin/projects/no-such-project/features');
    expect(res.statusCode).toBe(404);
    expect(res.json().name).toBe('NotFoundError');
    const anon = await send('GET', '/api/admin/projects/default/features', undefined, NO_AUTH);
    expect(anon.statusCode).toBe(401);
  });
});
