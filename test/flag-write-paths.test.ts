import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './api.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { prng } from './prng.js';

/**
 * A flag's create and update each have a set-based fast path whose events are built in SQL (one
 * statement, shared by the requests that arrive together) beside a plain path whose events are
 * built in TypeScript (a transaction: If-Match, tags on create). Both must write the same rows and
 * the same events. The same generated requests go through each path, on flags that differ only by
 * name; their stored rows and events, with the name and the times taken out, must be equal.
 */
let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const rand = prng(20261202);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const TYPES = ['release', 'experiment', 'kill-switch', 'operational', 'permission'];
const DESCRIPTIONS = ['', null, 'one', 'Two words', 'ünïcödé ✓', 'x'.repeat(300)];

/** A PUT body: some of the properties a flag update can change, each present or not. */
function updateBody(name: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (rand() < 0.5) body.description = pick(DESCRIPTIONS);
  if (rand() < 0.4) body.type = pick(TYPES);
  if (rand() < 0.4) body.stale = rand() < 0.5;
  if (rand() < 0.4) body.impressionData = rand() < 0.5;
  if (rand() < 0.2) body.name = name;
  return body;
}

/**
 * The stored events of the flag as its path left it: the flag's name (and `project`, when given)
 * replaced, ids and times left out.
 */
async function eventsOf(flag: string, project?: string) {
  const rows = await t.database.session((run) =>
    run(
      `SELECT type, created_by, created_by_user_id, project, environment, tags, data, pre_data
       FROM events WHERE feature_name = $1 ORDER BY id`,
      [flag],
    ),
  );
  const text = JSON.stringify(rows).replaceAll(flag, '<flag>');
  return JSON.parse(project ? text.replaceAll(`"${project}"`, '"default"') : text, (key, value) =>
    key === 'createdAt' || key === 'archivedAt' ? (value === null ? null : '<time>') : value,
  );
}

async function flagRow(flag: string) {
  const [row] = await t.database.session((run) =>
    run(
      'SELECT project, type, description, stale, impression_data, archived_at FROM features WHERE name = $1',
      [flag],
    ),
  );
  return row;
}

const url = (flag: string) => `/api/admin/projects/default/features/${flag}`;

describe('the fast and the plain path of a flag write', () => {
  it('an update: the same rows and events without If-Match (one statement) and with it (a transaction)', async () => {
    const fast = uniqueName('fast');
    const plain = uniqueName('plain');
    for (const name of [fast, plain]) {
      await a.createFlag('default', { name, tags: [{ type: 'simple', value: 'paths' }] });
    }
    for (let i = 0; i < 60; i++) {
      const body = updateBody('<flag>');
      const send = (flag: string, headers: Record<string, string> = {}) =>
        t.request({
          method: 'PUT',
          url: url(flag),
          headers,
          payload: body.name ? { ...body, name: flag } : body,
        });
      const viaFast = await send(fast);
      const viaPlain = await send(plain, { 'if-match': '*' });
      expect(viaFast.statusCode, viaFast.body).toBe(200);
      expect(viaPlain.statusCode, viaPlain.body).toBe(200);
      const answer = (body: string, flag: string) =>
        body.replaceAll(flag, '<flag>').replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"');
      expect(answer(viaFast.body, fast)).toBe(answer(viaPlain.body, plain));
    }
    expect(await flagRow(fast)).toEqual(await flagRow(plain));
    const events = await eventsOf(fast);
    expect(events).toEqual(await eventsOf(plain));
    // The generated requests reach every kind of event an update records.
    expect(new Set(events.map((e: { type: string }) => e.type))).toEqual(
      new Set(['feature-created', 'feature-metadata-updated', 'feature-stale-on', 'feature-stale-off']),
    );
  });

  it('a create: the same rows and events in one statement, together, checked, and in a transaction (tags)', async () => {
    // A naming pattern sends a create through its check first, then its own statement.
    const named = uniqueName('named').replace(/[^a-z0-9-]/gi, '-');
    const project = await t.request({
      method: 'POST',
      url: '/api/admin/projects',
      payload: { id: named, name: named, featureNaming: { pattern: '^[a-z].*$' } },
    });
    expect(project.statusCode, project.body).toBe(201);
    for (let i = 0; i < 12; i++) {
      const body: Record<string, unknown> = {};
      if (rand() < 0.7) body.type = pick(TYPES);
      if (rand() < 0.7) body.description = pick(DESCRIPTIONS);
      if (rand() < 0.5) body.impressionData = rand() < 0.5;
      const alone = uniqueName('alone');
      const together = [uniqueName('together'), uniqueName('together'), uniqueName('together')];
      const tagged = uniqueName('tagged');
      await a.createFlag('default', { ...body, name: alone });
      // Sent at once: those that arrive while one create runs are inserted by one statement.
      await Promise.all(together.map((name) => a.createFlag('default', { ...body, name })));
      await a.createFlag('default', { ...body, name: tagged, tags: [{ type: 'simple', value: 'paths' }] });
      const checked = uniqueName('checked');
      await a.createFlag(named, { ...body, name: checked });
      const row = await flagRow(alone);
      const createdOf = async (name: string) =>
        (await eventsOf(name)).find((e: { type: string }) => e.type === 'feature-created');
      const created = await createdOf(alone);
      for (const name of [...together, tagged]) {
        expect(await flagRow(name)).toEqual(row);
        const event = await createdOf(name);
        // The tagged flag's event carries its tag; nothing else may differ.
        expect({ ...event, tags: [] }).toEqual(created);
      }
      expect({ ...(await flagRow(checked)), project: 'default' }).toEqual(row);
      expect((await eventsOf(checked, named))[0]).toEqual(created);
    }
  });
});
