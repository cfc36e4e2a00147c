import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';

const k = flagTests();
const { NO_AUTH, send, eventTypes, newFlag } = k;

describe('POST /api/admin/projects/:projectId/stale', () => {
  it('marks listed flags, ignores unknown names, one event per changed flag', async () => {
    const one = await newFlag();
    const two = await newFlag({ description: 'x' });
    await k.a.updateFlag('default', two, { stale: true });
    const res = await send('POST', '/api/admin/projects/default/stale', {
      features: [one, two, uniqueName()],
      stale: true,
    });
    expect(res.statusCode).toBe(202);
    expect((await k.a.getFlag('default', one)).json().stale).toBe(true);
    expect((await k.a.flagEvents(one)).events[0]).toMatchObject({
      type: 'feature-stale-on',
      data: { stale: true },
      preData: { stale: false },
    });
    expect((await eventTypes(two)).filter((e) => e === 'feature-stale-on')).toHaveLength(1);
    await send('POST', '/api/admin/projects/default/stale', { features: [one], stale: false });
    expect((await k.a.flagEvents(one)).events[0]?.type).toBe('feature-stale-off');
  });

  it('400 for a bad body, 404 for an unknown project, 401; nothing changed', async () => {
    const name = await newFlag();
    const before = await k.a.count('events');
    const bad = await send('POST', '/api/admin/projects/default/stale', { features: [name] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().name).toBe('ValidationError');
    const none = await send('POST', '/api/admin/projects/nope/stale', { features: [name], stale: true });
    expect(none.statusCode).toBe(404);
    const anon = await send(
      'POST',
      '/api/admin/projects/default/stale',
      { features: [name], stale: true },
      NO_AUTH,
    );
    expect(anon.statusCode).toBe(401);
    expect(await k.a.count('events')).toBe(before);
    expect(await k.a.count('features', 'name = $1 AND stale', [name])).toBe(0);
  });
});
