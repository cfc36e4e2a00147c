import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';

const k = flagTests();
const { NO_AUTH, sql, post, flagUrl } = k;

describe('lifecycle', () => {
  it('GET lists stages; complete and uncomplete move the stage and record events', async () => {
    const name = uniqueName();
    await k.a.createFlag('default', { name });
    await sql(
      `UPDATE feature_lifecycles SET created_at = now() - interval '2 hours' WHERE feature_name = $1`,
      [name],
    );
    await sql(
      `INSERT INTO feature_lifecycles (feature_name, stage, created_at) VALUES ($1, 'live', now() - interval '1 hour')`,
      [name],
    );
    const initial = await k.t.request({ method: 'GET', url: `${flagUrl(name)}/lifecycle` });
    expect(initial.statusCode).toBe(200);
    expect(initial.json().map((s: { stage: string }) => s.stage)).toEqual(['initial', 'live']);
    expect(Object.keys(initial.json()[0]).sort()).toEqual(['enteredStageAt', 'stage']);

    const done = await post(`${flagUrl(name)}/lifecycle/complete`, { status: 'kept', statusValue: 'blue' });
    expect(done.statusCode).toBe(200);
    const stages = (await k.t.request({ method: 'GET', url: `${flagUrl(name)}/lifecycle` })).json();
    expect(stages.at(-1)).toMatchObject({ stage: 'completed', status: 'kept' });
    expect((await k.a.getFlag('default', name)).json().lifecycle.stage).toBe('completed');
    expect((await k.a.flagEvents(name)).events[0]).toMatchObject({
      type: 'feature-completed',
      data: { status: 'kept', statusValue: 'blue' },
    });

    const undone = await post(`${flagUrl(name)}/lifecycle/uncomplete`);
    expect(undone.statusCode).toBe(200);
    expect((await k.a.getFlag('default', name)).json().lifecycle.stage).toBe('live');
    expect((await k.a.flagEvents(name)).events[0]?.type).toBe('feature-uncompleted');
  });

  it('rejections: bad status 400, uncomplete when not completed 400, archived 400, unknown 404, 401', async () => {
    const name = uniqueName();
    await k.a.createFlag('default', { name });
    const before = await k.a.count('events');
    const bad = await post(`${flagUrl(name)}/lifecycle/complete`, { status: 'maybe' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().name).toBe('ValidationError');
    const notDone = await post(`${flagUrl(name)}/lifecycle/uncomplete`);
    expect(notDone.statusCode).toBe(400);
    expect(notDone.json().name).toBe('ValidationError');
    const unknown = await post(`${flagUrl(uniqueName())}/lifecycle/complete`, { status: 'kept' });
    expect(unknown.statusCode).toBe(404);
    expect((await k.t.request({ method: 'GET', url: `${flagUrl(uniqueName())}/lifecycle` })).statusCode).toBe(
      404,
    );
    const anon = await post(`${flagUrl(name)}/lifecycle/complete`, { status: 'kept' }, NO_AUTH);
    expect(anon.statusCode).toBe(401);
    expect(await k.a.count('events')).toBe(before);
    expect(await k.a.count('feature_lifecycles', `feature_name = $1 AND stage = 'completed'`, [name])).toBe(
      0,
    );
    await k.t.request({ method: 'DELETE', url: flagUrl(name) });
    const archived = await post(`${flagUrl(name)}/lifecycle/complete`, { status: 'kept' });
    expect(archived.statusCode).toBe(400);
  });
});
