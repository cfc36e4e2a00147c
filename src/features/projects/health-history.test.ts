import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp, uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';
import { recordProjectHealth } from './index.js';

// The service's clock, moved by the tests a day at a time (near the real time: flags are created
// at the database's time, and must not pass their lifetime by the clock's moves alone).
const DAY = 86_400_000;
let clock = Date.now();
const now = () => new Date(clock);
const today = () => new Date(clock).toISOString().slice(0, 10);

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp({ now });
  a = api(t);
});
afterAll(() => t.close());

const runJob = () => recordProjectHealth({ database: t.database, now });
const createProject = async (flags: number) => {
  const id = uniqueName('history');
  const res = await t.send('POST', '/api/admin/projects', { id, name: `Project ${id}` });
  expect(res.statusCode, res.body).toBe(201);
  const names: string[] = [];
  for (let i = 0; i < flags; i++) {
    const name = uniqueName('history-flag');
    await a.createFlag(id, { name });
    names.push(name);
  }
  return { id, names };
};
const markStale = async (project: string, name: string) => {
  const res = await t.send('POST', `/api/admin/projects/${project}/stale`, { features: [name], stale: true });
  expect(res.statusCode, res.body).toBe(202);
};
const history = async (project: string, query = '', headers?: Record<string, string | undefined>) => {
  const res = await t.send(
    'GET',
    `/api/admin/projects/${project}/health-history${query}`,
    undefined,
    headers,
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    projectId: string;
    days: { date: string; health: number; flags: number; stale: number; potentiallyStale: number }[];
  };
};
const storedRows = (project: string) =>
  t.database.session((run) =>
    run(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, health FROM project_health_daily WHERE project_id = $1 ORDER BY day`,
      [project],
    ),
  );

describe('GET /api/admin/projects/:projectId/health-history', () => {
  it('answers today at once for a new project, computed live', async () => {
    const { id } = await createProject(0);
    expect(await history(id)).toEqual({
      projectId: id,
      days: [{ date: today(), health: 100, flags: 0, stale: 0, potentiallyStale: 0 }],
    });
  });

  it('records a day per job round; a flag marked stale lowers the next day', async () => {
    const { id, names } = await createProject(2);
    const day1 = today();
    expect(await runJob()).toBeGreaterThan(0);
    await markStale(id, names[0] as string);
    clock += DAY;
    const day2 = today();
    await runJob();
    const body = await history(id);
    expect(body).toEqual({
      projectId: id,
      days: [
        { date: day1, health: 100, flags: 2, stale: 0, potentiallyStale: 0 },
        { date: day2, health: 50, flags: 2, stale: 1, potentiallyStale: 0 },
      ],
    });
    // `days=1` is today only; the stored rows are the two days.
    expect((await history(id, '?days=1')).days.map((d) => d.date)).toEqual([day2]);
    expect(await storedRows(id)).toEqual([
      { day: day1, health: 100 },
      { day: day2, health: 50 },
    ]);
  });

  it("a later round the same day overwrites that day's figures", async () => {
    const { id, names } = await createProject(4);
    const day1 = today();
    await runJob();
    expect(await storedRows(id)).toEqual([{ day: day1, health: 100 }]);
    await markStale(id, names[0] as string);
    await runJob();
    expect(await storedRows(id)).toEqual([{ day: day1, health: 75 }]);
    clock += DAY;
    const body = await history(id);
    expect(body.days).toEqual([
      { date: day1, health: 75, flags: 4, stale: 1, potentiallyStale: 0 },
      { date: today(), health: 75, flags: 4, stale: 1, potentiallyStale: 0 },
    ]);
  });

  it('answers only the days asked for, oldest first, today always computed live', async () => {
    const { id, names } = await createProject(2);
    const first = today();
    await runJob();
    clock += 3 * DAY;
    await runJob();
    const recorded = today();
    clock += DAY;
    await markStale(id, names[1] as string);
    // No round yet today: the last point is still today's, from the current data.
    const all = await history(id, '?days=365');
    expect(all.days.map((d) => [d.date, d.health])).toEqual([
      [first, 100],
      [recorded, 100],
      [today(), 50],
    ]);
    // The window is the last `days` UTC days, today included.
    expect((await history(id, '?days=2')).days.map((d) => d.date)).toEqual([recorded, today()]);
    expect((await history(id, '?days=4')).days.map((d) => d.date)).toEqual([recorded, today()]);
    expect((await history(id, '?days=5')).days.map((d) => d.date)).toEqual([first, recorded, today()]);
  });

  it('forgets the days of a deleted project', async () => {
    const { id } = await createProject(0);
    await runJob();
    expect(await storedRows(id)).toHaveLength(1);
    expect((await t.send('DELETE', `/api/admin/projects/${id}`)).statusCode).toBe(200);
    expect(await storedRows(id)).toEqual([]);
  });

  it('answers 404 for an unknown project, 400 for a bad `days`, as the other errors', async () => {
    const missing = await t.send('GET', '/api/admin/projects/no-such-project/health-history');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      id: expect.any(String),
      name: 'NotFoundError',
      message: 'Could not find project with id "no-such-project".',
    });
    for (const days of ['0', 'abc', '366', '1.5', '-1']) {
      const res = await t.send('GET', `/api/admin/projects/default/health-history?days=${days}`);
      expect(res.statusCode, `days=${days}`).toBe(400);
      expect(res.json()).toMatchObject({
        id: expect.any(String),
        name: 'ValidationError',
        message: expect.any(String),
      });
    }
    const anonymous = await t.send('GET', '/api/admin/projects/default/health-history', undefined, {
      authorization: undefined,
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('a Viewer reads it', async () => {
    const { id } = await createProject(1);
    const viewer = await createUser(t, 'Viewer');
    const cookie = await login(t, viewer.username);
    const body = await history(id, '?days=7', asUser(cookie));
    expect(body.days.at(-1)).toEqual({ date: today(), health: 100, flags: 1, stale: 0, potentiallyStale: 0 });
  });
});
