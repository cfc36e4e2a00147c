import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const bulk = (project: string, env: string, on: boolean, features: unknown) =>
  t.send('POST', `/api/admin/projects/${project}/bulk_features/environments/${env}/${on ? 'on' : 'off'}`, {
    features,
  });
const enabledIn = async (name: string, env: string) =>
  (await a.getFlag('default', name)).json().environments.find((e: { name: string }) => e.name === env);

describe('POST /api/admin/projects/:p/bulk_features/environments/:env/on|off', () => {
  it('turns several flags on and off in one go, each with its events and default strategy', async () => {
    const names = [uniqueName('b1'), uniqueName('b2'), uniqueName('b3')];
    for (const name of names) await a.createFlag('default', { name });
    await t.send('POST', `/api/admin/projects/default/features/${names[0]}/environments/production/on`);
    const on = await bulk('default', 'production', true, names);
    expect(on.statusCode).toBe(200);
    for (const name of names) {
      expect(await enabledIn(name, 'production')).toMatchObject({ enabled: true, hasStrategies: true });
      expect(await enabledIn(name, 'development')).toMatchObject({ enabled: false });
      const types = (await a.flagEvents(name)).events.map((e) => e.type);
      // Already on: no second enable event.
      expect(types.filter((x) => x === 'feature-environment-enabled')).toHaveLength(1);
      expect(types.filter((x) => x === 'feature-strategy-add')).toHaveLength(1);
    }
    expect((await bulk('default', 'production', false, [names[1], names[2]])).statusCode).toBe(200);
    expect((await enabledIn(names[0] as string, 'production')).enabled).toBe(true);
    expect((await enabledIn(names[1] as string, 'production')).enabled).toBe(false);
  });

  it('changes nothing when one flag is not in the project, and refuses bad bodies', async () => {
    const mine = uniqueName('mine');
    await a.createFlag('default', { name: mine });
    const res = await bulk('default', 'production', true, [mine, 'no-such-flag']);
    expect(res.statusCode).toBe(404);
    expect((await enabledIn(mine, 'production')).enabled).toBe(false);
    expect((await a.flagEvents(mine)).events.map((e) => e.type)).toEqual(['feature-created']);
    expect((await bulk('default', 'production', true, [])).statusCode).toBe(400);
    expect((await bulk('default', 'production', true, 'x')).statusCode).toBe(400);
    expect((await bulk('default', 'no-such-env', true, [mine])).statusCode).toBe(404);
  });
});
