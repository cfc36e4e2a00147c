import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * Creates in one project that arrive while another create there runs are inserted by one
 * statement (flags.service.ts, batchedCreates). What a client sees must not change: each create
 * answered on its own as a single create is, each flag with its environments, stage and event.
 *
 * To make the creates arrive together every time, the test holds the project's row in a
 * transaction of its own (PostgreSQL: the first insert waits for it, as the new flag references
 * the project; PGlite: for the one connection), sends the creates, then lets go.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

interface Answer {
  statusCode: number;
  json: () => Record<string, unknown>;
}

async function newProject(extra: Record<string, unknown> = {}): Promise<string> {
  const id = uniqueName('together');
  const res = await t.send('POST', '/api/admin/projects', { id, name: id, ...extra });
  expect(res.statusCode).toBeLessThan(300);
  return id;
}

/** Sends the creates while the project's row is held, then releases it; answers in the order sent. */
async function createWhileHeld(project: string, bodies: Record<string, unknown>[]): Promise<Answer[]> {
  let answers: Promise<Answer[]> | undefined;
  await t.database.db.transaction().execute(async (tx) => {
    await tx.selectFrom('projects').select('id').where('id', '=', project).forUpdate().execute();
    answers = Promise.all(
      bodies.map((body) => t.send('POST', `/api/admin/projects/${project}/features`, body)),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
  });
  return (await answers) ?? [];
}

const createdEvent = async (flag: string) => {
  const events = (await t.send('GET', `/api/admin/events/${flag}`)).json().events as Record<
    string,
    unknown
  >[];
  return events.filter((e) => e.type === 'feature-created');
};

describe('creates in one project sent together', () => {
  it('each is answered as a single create is, with its flag, environments, stage and event', async () => {
    const project = await newProject();
    const alone = uniqueName('alone');
    const single = await t.send('POST', `/api/admin/projects/${project}/features`, { name: alone });
    expect(single.statusCode).toBe(200);

    const names = Array.from({ length: 6 }, () => uniqueName('together'));
    const answers = await createWhileHeld(
      project,
      names.map((name, i) => ({ name, description: `flag ${i}`, impressionData: i === 2 })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(names.map(() => 200));

    const reference = single.json();
    for (const [i, answer] of answers.entries()) {
      const body = answer.json();
      // The same answer a create alone gives, but for its own values.
      expect(Object.keys(body).sort()).toEqual(Object.keys(reference).sort());
      expect(body).toMatchObject({
        name: names[i],
        description: `flag ${i}`,
        impressionData: i === 2,
        project,
      });
      const environments = (flag: Record<string, unknown>) =>
        (flag.environments as Record<string, unknown>[]).map(({ name, type, sortOrder, enabled }) => ({
          name,
          type,
          sortOrder,
          enabled,
        }));
      expect(environments(body)).toEqual(environments(reference));
      const read = (await t.send('GET', `/api/admin/projects/${project}/features/${names[i]}`)).json();
      expect(read).toMatchObject({ name: names[i], lifecycle: { stage: 'initial' } });
      expect(read.environments).toEqual(
        (reference.environments as Record<string, unknown>[]).map((e) =>
          expect.objectContaining({ name: e.name }),
        ),
      );
      const [event, ...more] = await createdEvent(String(names[i]));
      expect(more).toEqual([]);
      expect(event).toMatchObject({
        project,
        featureName: names[i],
        data: {
          name: names[i],
          description: `flag ${i}`,
          impressionData: i === 2,
          createdAt: body.createdAt,
        },
      });
    }
    // The creates that waited were inserted by one statement: their events share its time.
    // (Without that, this test would pass through one-by-one inserts and say nothing of the batch.)
    const times = new Set<unknown>();
    for (const name of names) times.add((await createdEvent(name))[0]?.createdAt);
    expect(times.size).toBeLessThan(names.length);
  });

  it('a taken name and a name sent twice fail alone: 409, one flag, one event', async () => {
    const project = await newProject();
    const taken = uniqueName('taken');
    expect(
      (await t.send('POST', `/api/admin/projects/${project}/features`, { name: taken })).statusCode,
    ).toBe(200);
    const [twice, next] = [uniqueName('twice'), uniqueName('next')];
    const answers = await createWhileHeld(project, [
      { name: uniqueName('first') },
      { name: twice, description: 'one' },
      { name: taken },
      { name: twice, description: 'two' },
      { name: next },
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 409, 409, 200]);
    expect(answers[2]?.json()).toMatchObject({ name: 'NameExistsError' });
    // The first create of the name got it, as it was sent first.
    const [event, ...more] = await createdEvent(twice);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ data: { description: 'one' } });
    expect(await createdEvent(taken)).toHaveLength(1);
    expect(await createdEvent(next)).toHaveLength(1);
  });

  it('a value the database refuses fails alone; the others are created', async () => {
    const project = await newProject();
    const names = [uniqueName('a'), uniqueName('b'), uniqueName('c'), uniqueName('d')];
    const answers = await createWhileHeld(
      project,
      names.map((name, i) => ({ name, description: i === 2 ? 'bad\u0000text' : 'fine' })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 400, 200]);
    expect(answers[2]?.json()).toMatchObject({ name: 'ValidationError' });
    expect((await t.send('GET', `/api/admin/projects/${project}/features/${names[2]}`)).statusCode).toBe(404);
    for (const name of [names[0], names[1], names[3]])
      expect(await createdEvent(String(name))).toHaveLength(1);
  });

  it('in a project with a naming pattern, each name is checked against it', async () => {
    const project = await newProject();
    const settings = await t.send('PUT', `/api/admin/projects/${project}/settings`, {
      featureNaming: { pattern: 'ok-.*' },
    });
    expect(settings.statusCode).toBeLessThan(300);
    const fits = `ok-${uniqueName()}`;
    const answers = await createWhileHeld(project, [
      { name: `ok-${uniqueName()}` },
      { name: fits },
      { name: uniqueName('no') },
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 400]);
    expect((await createdEvent(fits))[0]).toMatchObject({ project });
  });
});
