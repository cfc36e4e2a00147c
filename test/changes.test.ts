import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changes } from '../src/changes.js';
import { testConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import type { Change } from '../src/features/changes/index.js';
import { transaction } from '../src/platform/db/index.js';
import type { Principal } from '../src/platform/http/auth.js';
import { api } from './api.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';
import { prng } from './prng.js';

/**
 * The applier of configuration changes (src/features/changes/): a list applies in one transaction,
 * all or nothing; checking a list says which events applying it records, without changing
 * anything or using an event id; a change made against a state its target left is a conflict; a
 * change alone through its fast path writes what the transaction writes.
 */
let t: TestApp;
let a: ReturnType<typeof api>;
let deps: Deps;
const by: Principal = { name: 'changes-test', userId: -42, kind: 'admin-token', grants: [] };

beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
  // One clock for check and apply: the events of a check name the time applying would.
  const now = new Date();
  deps = { database: t.database, config: testConfig(), now: () => now };
});
afterAll(() => t.close());

const ENVIRONMENTS = ['development', 'production'] as const;
const rand = prng(20261202);
const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;

async function newFlags(count: number): Promise<string[]> {
  const names = Array.from({ length: count }, () => uniqueName('change'));
  for (const name of names) await a.createFlag('default', { name });
  return names;
}

const at = (feature: string, environment: string) => ({ project: 'default', feature, environment });

/** What the flags' configuration is: environments' state and variants, strategies, dependencies, archived. */
async function stateOf(flags: string[]) {
  return t.database.session(async (run) => ({
    environments: await run(
      `SELECT feature_name, environment, enabled, variants FROM feature_environments
       WHERE feature_name = ANY($1) ORDER BY 1, 2`,
      [flags],
    ),
    strategies: await run(
      `SELECT id, feature_name, environment, strategy_name, title, disabled, sort_order, parameters,
         constraints, variants FROM feature_strategies WHERE feature_name = ANY($1)
       ORDER BY feature_name, environment, sort_order, created_at, id`,
      [flags],
    ),
    dependencies: await run(
      `SELECT child, parent, enabled, variants FROM feature_dependencies
       WHERE child = ANY($1) ORDER BY child, parent`,
      [flags],
    ),
    archived: await run(
      `SELECT name, archived_at IS NOT NULL AS archived FROM features WHERE name = ANY($1) ORDER BY name`,
      [flags],
    ),
  }));
}

async function newSegment(): Promise<number> {
  const created = await t.send('POST', '/api/admin/segments', {
    name: uniqueName('segment'),
    constraints: [],
  });
  expect(created.statusCode).toBe(201);
  return created.json().id as number;
}

async function segmentsOf(ids: number[]) {
  return t.database.session((run) =>
    run(
      `SELECT id, name, description, segment_project_id, constraints FROM segments WHERE id = ANY($1) ORDER BY id`,
      [ids],
    ),
  );
}

/** The events sequence as it stands: a check must leave it where it was. */
async function eventSequence() {
  const [row] = await t.database.session((run) =>
    run(`SELECT nextval(pg_get_serial_sequence('events', 'id'))::text AS next`, []),
  );
  return Number(row?.next);
}

async function eventsAfter(id: number) {
  return t.database.session((run) =>
    run(
      `SELECT type, feature_name AS "featureName", project, environment, data, pre_data AS "preData"
       FROM events WHERE id > $1 ORDER BY id`,
      [id],
    ),
  );
}

/** Strategy ids (UUIDs) numbered in order of first appearance: a check's new ids are not the apply's. */
function withIdsNumbered(value: unknown): unknown {
  const seen = new Map<string, string>();
  const text = JSON.stringify(value).replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    (id) => {
      if (!seen.has(id)) seen.set(id, `<id ${seen.size}>`);
      return seen.get(id) as string;
    },
  );
  return JSON.parse(text);
}

type StrategyRow = { id: string; feature_name: string; environment: string };

/**
 * A change of a random kind that applies to the flags as they are. Dependencies go to `parent`,
 * a flag of its own that no change lists as a child, so any such change applies.
 */
function randomChange(flags: string[], parent: string, segment: number, strategies: StrategyRow[]): Change {
  const feature = pick(flags);
  const environment = pick(ENVIRONMENTS);
  const own = strategies.filter((s) => s.feature_name === feature && s.environment === environment);
  const always = [
    'updateEnabled',
    'addStrategy',
    'patchVariant',
    'updateFlagVariants',
    'addDependency',
    'deleteDependency',
    'updateSegment',
  ] as const;
  const withStrategies = ['updateStrategy', 'deleteStrategy', 'reorderStrategy'] as const;
  const kind = pick(own.length === 0 ? always : [...always, ...withStrategies]);
  const rollout = String(Math.floor(rand() * 101));
  switch (kind) {
    case 'updateEnabled':
      return { action: kind, ...at(feature, environment), payload: { enabled: rand() < 0.6 } };
    case 'addStrategy':
      return {
        action: kind,
        ...at(feature, environment),
        payload: {
          name: 'flexibleRollout',
          parameters: { rollout, stickiness: 'default', groupId: feature },
          ...(rand() < 0.5 && {
            constraints: [{ contextName: 'userId', operator: 'IN', values: [`u${rollout}`] }],
          }),
          ...(rand() < 0.3 && { disabled: true }),
        },
      };
    case 'updateStrategy':
      return {
        action: kind,
        ...at(feature, environment),
        payload: {
          id: pick(own).id,
          ...(rand() < 0.7 && { parameters: { rollout, stickiness: 'default', groupId: feature } }),
          ...(rand() < 0.4 && { disabled: rand() < 0.5 }),
          ...(rand() < 0.3 && { title: rand() < 0.5 ? null : `title ${rollout}` }),
        },
      };
    case 'deleteStrategy':
      return { action: kind, ...at(feature, environment), payload: { id: pick(own).id } };
    case 'patchVariant':
      return { action: kind, ...at(feature, environment), payload: { variants: randomVariants() } };
    case 'updateFlagVariants':
      return { action: kind, project: 'default', feature, payload: { variants: randomVariants() } };
    case 'addDependency': {
      const enabled = rand() < 0.7;
      return {
        action: kind,
        project: 'default',
        feature,
        payload: { feature: parent, enabled, ...(enabled && rand() < 0.4 && { variants: ['v0'] }) },
      };
    }
    case 'deleteDependency':
      return {
        action: kind,
        project: 'default',
        feature,
        ...(rand() < 0.5 && { payload: { feature: parent } }),
      };
    case 'updateSegment':
      return {
        action: kind,
        payload: {
          id: segment,
          name: `segment-${segment}-${rollout}`,
          ...(rand() < 0.5 && { description: `rollout ${rollout}` }),
          ...(rand() < 0.3 && { project: 'default' }),
          constraints: [{ contextName: 'userId', operator: 'IN', values: [`u${rollout}`] }],
        },
      };
    case 'reorderStrategy':
      return {
        action: kind,
        ...at(feature, environment),
        payload: own.map((s) => ({ id: s.id, sortOrder: Math.floor(rand() * 10) })),
      };
  }
}

/** Zero to three variants, the first sometimes with a fixed weight, some with a payload. */
function randomVariants() {
  const count = Math.floor(rand() * 4);
  // A fixed weight only beside variable ones, which share what it leaves of 1000.
  const fixFirst = count > 1 && rand() < 0.4;
  return Array.from({ length: count }, (_, i) => ({
    name: `v${i}`,
    weight: i === 0 && fixFirst ? 200 : 0,
    weightType: i === 0 && fixFirst ? ('fix' as const) : ('variable' as const),
    stickiness: 'default',
    ...(rand() < 0.3 && { payload: { type: 'string' as const, value: `p${i}` } }),
  }));
}

/** A list of changes that applies, each drawn against the state the ones before it leave. */
async function randomList(flags: string[], parent: string, segment: number): Promise<Change[]> {
  const strategies = (await stateOf(flags)).strategies as StrategyRow[];
  const list: Change[] = [];
  const size = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < size; i++) {
    const change = randomChange(flags, parent, segment, strategies);
    // Later changes in the list only target strategies that exist before it is applied and that
    // an earlier change of the list does not delete.
    if (change.action === 'deleteStrategy') {
      const gone = strategies.findIndex((s) => s.id === change.payload.id);
      strategies.splice(gone, 1);
    }
    list.push(change);
  }
  return list;
}

describe('the applier of configuration changes', () => {
  it('a check records nothing and uses no event id, and applying records exactly the events it listed (every kind)', async () => {
    const [parent, ...flags] = (await newFlags(3)) as [string, ...string[]];
    const segment = await newSegment();
    const kinds = new Set<string>();
    let recordedInAll = 0;
    for (let round = 0; round < 50; round++) {
      const list = await randomList(flags, parent, segment);
      // Now and then a flag and a segment of their own are archived and deleted somewhere in the
      // list (nothing after can use them).
      const archived = rand() < 0.25 ? await newFlags(1) : [];
      const deleted = rand() < 0.25 ? [await newSegment()] : [];
      const insert = (change: Change) => list.splice(Math.floor(rand() * (list.length + 1)), 0, change);
      for (const feature of archived) insert({ action: 'archiveFeature', project: 'default', feature });
      for (const id of deleted) insert({ action: 'deleteSegment', payload: { id } });
      for (const change of list) kinds.add(change.action);
      const before = {
        ...(await stateOf([...flags, ...archived])),
        segments: await segmentsOf([segment, ...deleted]),
      };
      const next = await eventSequence();

      const checked = await changes.check(deps, list, by);
      expect(checked, JSON.stringify(list)).toMatchObject({ ok: true });
      expect({
        ...(await stateOf([...flags, ...archived])),
        segments: await segmentsOf([segment, ...deleted]),
      }).toEqual(before);
      // The sequence moved by exactly the one nextval of eventSequence itself.
      expect(await eventSequence()).toBe(next + 1);

      await changes.apply(deps, list, by);
      const recorded = await eventsAfter(next + 1);
      expect(withIdsNumbered(recorded)).toEqual(withIdsNumbered(checked.ok && checked.events));
      recordedInAll += recorded.length;
    }
    expect(recordedInAll).toBeGreaterThan(50);
    expect([...kinds].sort()).toEqual(
      [
        'addDependency',
        'addStrategy',
        'archiveFeature',
        'deleteDependency',
        'deleteSegment',
        'deleteStrategy',
        'patchVariant',
        'reorderStrategy',
        'updateEnabled',
        'updateFlagVariants',
        'updateSegment',
        'updateStrategy',
      ].sort(),
    );
  });

  it('a list is all or nothing: a change that fails leaves the ones before it unapplied, and a check names it', async () => {
    const [first, second] = (await newFlags(2)) as [string, string];
    const list: Change[] = [
      { action: 'updateEnabled', ...at(first, 'development'), payload: { enabled: true } },
      {
        action: 'addStrategy',
        ...at(second, 'production'),
        payload: { name: 'default' },
      },
      { action: 'deleteStrategy', ...at(second, 'production'), payload: { id: 'no-such-strategy' } },
    ];
    const before = await stateOf([first, second]);
    const next = await eventSequence();

    const checked = await changes.check(deps, list, by);
    expect(checked).toMatchObject({
      ok: false,
      failedChange: 2,
      status: 404,
      error: { name: 'NotFoundError' },
    });
    await expect(changes.apply(deps, list, by)).rejects.toMatchObject({ status: 404 });

    expect(await stateOf([first, second])).toEqual(before);
    expect(await eventsAfter(next)).toEqual([]);
  });

  it('a change made against a strategy that has changed since is a conflict (409), checked or applied', async () => {
    const [flag] = (await newFlags(1)) as [string];
    const [added] = await changes.apply(
      deps,
      [{ action: 'addStrategy', ...at(flag, 'development'), payload: { name: 'default', title: 'first' } }],
      by,
    );
    const stale = { ...added, title: 'what the author saw' };
    const conflicting: Change[] = [
      {
        action: 'updateStrategy',
        ...at(flag, 'development'),
        payload: { id: added.id, title: 'x', snapshot: stale },
      },
    ];
    expect(await changes.check(deps, conflicting, by)).toMatchObject({
      ok: false,
      failedChange: 0,
      status: 409,
    });
    await expect(changes.apply(deps, conflicting, by)).rejects.toMatchObject({ status: 409 });
    await expect(
      changes.apply(
        deps,
        [
          {
            action: 'deleteStrategy',
            ...at(flag, 'development'),
            payload: { id: added.id, snapshot: stale },
          },
        ],
        by,
      ),
    ).rejects.toMatchObject({ status: 409 });

    // Made against the strategy as it is, the same change applies.
    const [after] = await changes.apply(
      deps,
      [
        {
          action: 'updateStrategy',
          ...at(flag, 'development'),
          payload: { id: added.id, title: 'x', snapshot: added },
        },
      ],
      by,
    );
    expect(after.title).toBe('x');
  });

  it('a segment change conflicts with a segment edited since, not with its use by more flags', async () => {
    const id = await newSegment();
    const [flag] = (await newFlags(1)) as [string];
    const seen = (await t.send('GET', `/api/admin/segments/${id}`)).json();
    // Used by a strategy since: its counts change, the segment does not.
    await changes.apply(
      deps,
      [{ action: 'addStrategy', ...at(flag, 'development'), payload: { name: 'default', segments: [id] } }],
      by,
    );
    const update = (snapshot: unknown): Change[] => [
      {
        action: 'updateSegment',
        payload: { id, name: `${seen.name}-2`, constraints: [], snapshot: snapshot as never },
      },
    ];
    await changes.apply(deps, update(seen), by);
    expect((await t.send('GET', `/api/admin/segments/${id}`)).json()).toMatchObject({
      name: `${seen.name}-2`,
      usedInFeatures: 1,
    });
    // Made against the segment before that rename: a conflict, checked or applied.
    expect(await changes.check(deps, update(seen), by)).toMatchObject({ ok: false, status: 409 });
    await expect(
      changes.apply(deps, [{ action: 'deleteSegment', payload: { id, snapshot: seen } }], by),
    ).rejects.toMatchObject({ status: 409 });
  });

  it('turning a flag on or off alone (one statement) writes what the transaction writes', async () => {
    const [fast, plain] = (await newFlags(2)) as [string, string];
    const steps = Array.from({ length: 30 }, () => ({
      environment: pick(ENVIRONMENTS),
      enabled: rand() < 0.5,
    }));
    const fastStart = await eventSequence();
    for (const { environment, enabled } of steps) {
      await changes.apply(
        deps,
        [{ action: 'updateEnabled', ...at(fast, environment), payload: { enabled } }],
        by,
      );
    }
    const plainStart = await eventSequence();
    for (const { environment, enabled } of steps) {
      // applyIn never takes a fast path: the change runs in this transaction.
      await transaction(t.database.db, (tx) =>
        changes.applyIn(tx, [{ action: 'updateEnabled', ...at(plain, environment), payload: { enabled } }], {
          deps,
          by,
        }),
      );
    }
    const named = (rows: unknown, flag: string) =>
      withIdsNumbered(JSON.parse(JSON.stringify(rows).replaceAll(flag, '<flag>')));
    const fastEvents = (await eventsAfter(fastStart)).filter((e) => e.featureName === fast);
    const plainEvents = (await eventsAfter(plainStart)).filter((e) => e.featureName === plain);
    expect(fastEvents.length).toBeGreaterThan(0);
    expect(named(fastEvents, fast)).toEqual(named(plainEvents, plain));
    const fastState = await stateOf([fast]);
    const plainState = await stateOf([plain]);
    expect(named(fastState.environments, fast)).toEqual(named(plainState.environments, plain));
    expect(named(fastState.strategies, fast)).toEqual(named(plainState.strategies, plain));
  });

  it('concurrent JSON Patches of one strategy each apply to the latest: none is lost', async () => {
    const [flag] = (await newFlags(1)) as [string];
    const base = `/api/admin/projects/default/features/${flag}/environments/development/strategies`;
    const created = await t.send('POST', base, { name: 'default' });
    const id = created.json().id as string;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.send('PATCH', `${base}/${id}`, [
          {
            op: 'add',
            path: '/constraints/-',
            value: { contextName: 'userId', operator: 'IN', values: [`u${i}`] },
          },
        ]),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    const stored = (await t.send('GET', `${base}/${id}`)).json() as { constraints: { values: string[] }[] };
    expect(stored.constraints.map((c) => c.values[0]).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `u${i}`).sort(),
    );
  });
});
