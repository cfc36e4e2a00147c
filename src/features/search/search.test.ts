import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { configSql } from '../../../test/config-sql.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

/**
 * A small catalogue where every filter and sort has a known answer:
 *
 * | flag    | project | type        | created    | stale | tags          | enabled  | segments  | stage     | by  |
 * | alpha   | default | release     | 2024-01-01 |       | team-a team-b | dev      | seg-a     | live      | 7   |
 * | bravo   | default | experiment  | 2024-01-02 | yes   | team-a        | prod     |           | pre-live  | -42 |
 * | charlie | other   | release     | 2024-01-03 | pot.  | team-b        | dev prod | seg-a,b   | completed | 7   |
 * | foxtrot | default | operational | 2024-01-03 |       |               |          |           | initial   |     |
 * | delta   | other   | kill-switch | 2024-01-04 |       |               |          |           | initial   | -42 |
 * | echo    | default | release     | 2024-01-05 | (archived)  team-a  |          |           | archived  | -42 |
 */
let t: TestApp;
let userCookie: string;
const SEARCH = '/api/admin/search/features';
const ACTIVE_BY_CREATED = ['alpha', 'bravo', 'charlie', 'foxtrot', 'delta'];

async function sql(text: string, params: unknown[] = []) {
  return t.database.session((run) => run(text, params));
}

async function search(qs: string, headers: Record<string, string | undefined> = {}) {
  const res = await t.send('GET', `${SEARCH}${qs ? `?${qs}` : ''}`, undefined, headers);
  if (res.statusCode !== 200) throw new Error(`search ${qs}: ${res.statusCode} ${res.body}`);
  return res.json() as { features: Record<string, unknown>[]; total: number };
}
const names = async (qs: string, headers?: Record<string, string | undefined>) => {
  const body = await search(qs, headers);
  const list = body.features.map((f) => f.name as string);
  expect(body.total).toBe(list.length);
  return list;
};

beforeAll(async () => {
  t = await startTestApp();
  const a = api(t);
  const c = configSql(t);
  const project = await t.send('POST', '/api/admin/projects', { id: 'other', name: 'Other' });
  expect(project.statusCode).toBeLessThan(300);
  const flags: [string, string, string, string | null][] = [
    ['alpha', 'default', 'release', 'Checkout 50%_off'],
    ['bravo', 'default', 'experiment', null],
    ['charlie', 'other', 'release', 'payments'],
    ['foxtrot', 'default', 'operational', 'back\\slash'],
    ['delta', 'other', 'kill-switch', 'Delta'],
    ['echo', 'default', 'release', null],
  ];
  for (const [name, p, type, description] of flags) {
    await a.createFlag(p, { name, type, ...(description !== null && { description }) });
  }
  const created: Record<string, string> = {
    alpha: '2024-01-01T10:00:00Z',
    bravo: '2024-01-02T10:00:00Z',
    charlie: '2024-01-03T10:00:00Z',
    foxtrot: '2024-01-03T10:00:00Z',
    delta: '2024-01-04T10:00:00Z',
    echo: '2024-01-05T10:00:00Z',
  };
  for (const [name, at] of Object.entries(created)) {
    await sql('UPDATE features SET created_at = $2 WHERE name = $1', [name, at]);
  }
  await sql(`UPDATE features SET stale = true WHERE name = 'bravo'`);
  await sql(`UPDATE features SET potentially_stale = true WHERE name IN ('charlie', 'bravo')`);
  await sql(`UPDATE features SET created_by_user_id = 7 WHERE name IN ('alpha', 'charlie')`);
  await sql(`UPDATE features SET created_by_user_id = NULL WHERE name = 'foxtrot'`);
  await sql(`UPDATE features SET archived_at = now() WHERE name = 'echo'`);
  await sql(`INSERT INTO tags (type, value) VALUES ('simple', 'team-a'), ('simple', 'team-b')`);
  await sql(`INSERT INTO feature_tag (feature_name, tag_type, tag_value) VALUES
    ('alpha', 'simple', 'team-a'), ('alpha', 'simple', 'team-b'), ('bravo', 'simple', 'team-a'),
    ('charlie', 'simple', 'team-b'), ('echo', 'simple', 'team-a')`);
  await sql(`INSERT INTO feature_lifecycles (feature_name, stage, created_at) VALUES
    ('alpha', 'pre-live', now() + interval '1 minute'), ('alpha', 'live', now() + interval '2 minutes'),
    ('bravo', 'pre-live', now() + interval '1 minute'),
    ('charlie', 'completed', now() + interval '3 minutes'),
    ('echo', 'archived', now() + interval '1 minute')`);
  await sql(`DELETE FROM feature_lifecycles WHERE feature_name = 'delta'`); // no row: initial
  const segA = await c.addSegment('seg-a', []);
  const segB = await c.addSegment('seg-b', []);
  await c.addStrategy('alpha', 'development', { name: 'default', segments: [segA] });
  await c.addStrategy('charlie', 'production', { name: 'default', segments: [segA, segB], disabled: true });
  await c.enable('alpha', 'development');
  await c.enable('bravo', 'production');
  await c.enable('charlie', 'development');
  await c.enable('charlie', 'production');
  await c.addDependency('bravo', 'alpha');
  await sql(`UPDATE feature_environments SET last_seen_at = '2024-03-01T00:00:00Z'
    WHERE feature_name = 'alpha' AND environment = 'development'`);
  await sql(`UPDATE feature_environments SET last_seen_at = '2024-02-01T00:00:00Z'
    WHERE feature_name = 'charlie' AND environment = 'production'`);
  // As metrics write it (markFlagsSeen): the flag's own value is the latest of its environments.
  await sql(`UPDATE features f SET last_seen_at = (SELECT max(last_seen_at) FROM feature_environments fe
    WHERE fe.feature_name = f.name) WHERE name IN ('alpha', 'charlie')`);
  await sql(`INSERT INTO client_metrics_env (feature_name, app_name, environment, timestamp, yes, no) VALUES
    ('alpha', 'app', 'development', now() - interval '10 minutes', 10, 2),
    ('alpha', 'other-app', 'development', now() - interval '20 minutes', 1, 1),
    ('alpha', 'app', 'development', now() - interval '3 hours', 100, 100)`);
  const user = await createUser(t, 'Viewer');
  userCookie = await login(t, user.username);
  await sql(`INSERT INTO favorite_features (feature_name, user_id) VALUES ('delta', $1), ('charlie', $1)`, [
    user.id,
  ]);
});
afterAll(() => t.close());

describe('GET /api/admin/search/features: filters', () => {
  // [query string, matching flags]; answers in the default order (createdAt, then name).
  const cases: [string, string[]][] = [
    ['', ACTIVE_BY_CREATED],
    ['query=ALPHA', ['alpha']],
    ['query=checkout', ['alpha']],
    ['query=team-b', ['alpha', 'charlie']],
    ['query=simple:team-a', ['alpha', 'bravo']],
    ['query=delta, payments', ['charlie', 'delta']],
    ['query=50%25_', ['alpha']],
    ['query=%25', ['alpha']],
    ['query=_', ['alpha']],
    ['query=%5C', ['foxtrot']],
    ['query=a%25e', []],
    ['query=nothing-like-this', []],
    ['query=,,', ACTIVE_BY_CREATED],
    ['project=IS:other', ['charlie', 'delta']],
    ['project=IS_NOT:other', ['alpha', 'bravo', 'foxtrot']],
    ['project=IS_ANY_OF:default,other', ACTIVE_BY_CREATED],
    ['project=IS_NONE_OF:default,nope', ['charlie', 'delta']],
    ['project=IS:nope', []],
    ['type=IS:release', ['alpha', 'charlie']],
    ['type=IS_NOT:release', ['bravo', 'foxtrot', 'delta']],
    ['type=IS_ANY_OF:experiment,kill-switch', ['bravo', 'delta']],
    ['type=IS_NONE_OF:release,experiment', ['foxtrot', 'delta']],
    ['state=IS:stale', ['bravo']],
    ['state=IS:active', ['alpha', 'charlie', 'foxtrot', 'delta']],
    ['state=IS:potentially-stale', ['charlie']],
    ['state=IS_NOT:active', ['bravo']],
    ['state=IS_ANY_OF:stale,potentially-stale', ['bravo', 'charlie']],
    ['state=IS_NONE_OF:stale,potentially-stale', ['alpha', 'foxtrot', 'delta']],
    ['lifecycle=IS:live', ['alpha']],
    ['lifecycle=IS:initial', ['foxtrot', 'delta']],
    ['lifecycle=IS_NOT:initial', ['alpha', 'bravo', 'charlie']],
    ['lifecycle=IS_ANY_OF:pre-live,completed', ['bravo', 'charlie']],
    ['lifecycle=IS:archived', ['echo']],
    ['lifecycle=IS_ANY_OF:live,archived', ['alpha', 'echo']],
    ['lifecycle=IS_NONE_OF:live,archived', ['bravo', 'charlie', 'foxtrot', 'delta']],
    ['createdBy=IS:7', ['alpha', 'charlie']],
    ['createdBy=IS:-42', ['bravo', 'delta']],
    ['createdBy=IS_NOT:7', ['bravo', 'foxtrot', 'delta']],
    ['createdBy=IS_ANY_OF:7,-42', ['alpha', 'bravo', 'charlie', 'delta']],
    ['createdBy=IS_NONE_OF:-42', ['alpha', 'charlie', 'foxtrot']],
    ['tag=INCLUDE:simple:team-a', ['alpha', 'bravo']],
    ['tag=DO_NOT_INCLUDE:simple:team-a', ['charlie', 'foxtrot', 'delta']],
    ['tag=INCLUDE_ALL_OF:simple:team-a,simple:team-b', ['alpha']],
    ['tag=INCLUDE_ANY_OF:simple:team-a,simple:team-b', ['alpha', 'bravo', 'charlie']],
    ['tag=EXCLUDE_IF_ANY_OF:simple:team-a,simple:team-b', ['foxtrot', 'delta']],
    ['tag=EXCLUDE_ALL:simple:team-a,simple:team-b', ['bravo', 'charlie', 'foxtrot', 'delta']],
    ['tag=INCLUDE:simple:nope', []],
    ['tag=INCLUDE_ALL_OF:simple:team-a,simple:nope', []],
    ['segment=INCLUDE:seg-a', ['alpha', 'charlie']],
    ['segment=DO_NOT_INCLUDE:seg-a', ['bravo', 'foxtrot', 'delta']],
    ['segment=INCLUDE_ALL_OF:seg-a,seg-b', ['charlie']],
    ['segment=INCLUDE_ANY_OF:seg-b,nope', ['charlie']],
    ['segment=EXCLUDE_IF_ANY_OF:seg-b', ['alpha', 'bravo', 'foxtrot', 'delta']],
    ['segment=EXCLUDE_ALL:seg-a,seg-b', ['alpha', 'bravo', 'foxtrot', 'delta']],
    ['segment=INCLUDE:nope', []],
    ['status=development:enabled', ['alpha', 'charlie']],
    ['status=production:disabled', ['alpha', 'foxtrot', 'delta']],
    ['status=development:enabled&status=production:enabled', ['alpha', 'bravo', 'charlie']],
    ['status=nope:enabled', []],
    ['createdAt=IS_BEFORE:2024-01-03', ['alpha', 'bravo']],
    ['createdAt=IS_ON_OR_AFTER:2024-01-03', ['charlie', 'foxtrot', 'delta']],
    ['lastSeenAt=IS_BEFORE:2024-02-15', ['charlie']],
    ['lastSeenAt=IS_ON_OR_AFTER:2024-02-01', ['alpha', 'charlie']],
    ['archived=IS:true', ['echo']],
    ['archived=IS:false', ACTIVE_BY_CREATED],
    ['archived=IS:true&tag=INCLUDE:simple:team-a', ['echo']],
    ['favorite=IS:true', []],
    ['favorite=IS_ANY_OF:true,false', ACTIVE_BY_CREATED],
    // Combinations.
    ['project=IS:default&type=IS:release', ['alpha']],
    ['query=team&state=IS:active', ['alpha', 'charlie']],
    ['tag=INCLUDE:simple:team-a&status=production:enabled', ['bravo']],
    ['segment=INCLUDE:seg-a&createdBy=IS:7&lifecycle=IS:completed', ['charlie']],
    ['project=IS:other&state=IS:active&createdAt=IS_ON_OR_AFTER:2024-01-04', ['delta']],
    ['type=IS:release&tag=EXCLUDE_ALL:simple:team-a,simple:team-b&status=production:enabled', ['charlie']],
    ['query=a&project=IS_NOT:other&lastSeenAt=IS_ON_OR_AFTER:2024-01-01', ['alpha']],
  ];
  it.each(cases)('%s', async (qs, expected) => {
    const found = await names(qs);
    expect(found).toEqual(expected);
  });

  it("favorite filters the caller's favorites", async () => {
    expect(await names('favorite=IS:true', asUser(userCookie))).toEqual(['charlie', 'delta']);
    expect(await names('favorite=IS:false', asUser(userCookie))).toEqual(['alpha', 'bravo', 'foxtrot']);
  });
});

describe('GET /api/admin/search/features: sorts', () => {
  // [sortBy, ascending order]; desc is the exact reverse unless given.
  const sorts: [string, string[], string[]?][] = [
    ['createdAt', ACTIVE_BY_CREATED],
    ['name', ['alpha', 'bravo', 'charlie', 'delta', 'foxtrot']],
    ['type', ['bravo', 'delta', 'foxtrot', 'alpha', 'charlie']],
    ['project', ['alpha', 'bravo', 'foxtrot', 'charlie', 'delta']],
    ['stale', ['alpha', 'charlie', 'foxtrot', 'delta', 'bravo']],
    // Never seen last both ways.
    [
      'lastSeenAt',
      ['charlie', 'alpha', 'bravo', 'foxtrot', 'delta'],
      ['alpha', 'charlie', 'delta', 'foxtrot', 'bravo'],
    ],
    // By enabled as Unleash orders it: disabled first (asc), enabled first (desc).
    [
      'environment:development',
      ['bravo', 'foxtrot', 'delta', 'alpha', 'charlie'],
      ['charlie', 'alpha', 'delta', 'foxtrot', 'bravo'],
    ],
    ['environment:production', ['alpha', 'foxtrot', 'delta', 'bravo', 'charlie']],
  ];
  it.each(sorts)('sortBy=%s asc and desc', async (sortBy, asc, desc) => {
    expect(await names(`sortBy=${sortBy}`)).toEqual(asc);
    expect(await names(`sortBy=${sortBy}&sortOrder=asc`)).toEqual(asc);
    expect(await names(`sortBy=${sortBy}&sortOrder=desc`)).toEqual(desc ?? [...asc].reverse());
  });

  it('sortBy=environment with filters, text and favorites; flags without a row in it last', async () => {
    // No flag has a row in an unknown environment: creation order both ways.
    expect(await names('sortBy=environment:nowhere')).toEqual(ACTIVE_BY_CREATED);
    expect(await names('sortBy=environment:nowhere&sortOrder=desc')).toEqual(
      [...ACTIVE_BY_CREATED].reverse(),
    );
    expect(await names('query=team&sortBy=environment:production')).toEqual(['alpha', 'bravo', 'charlie']);
    expect(await names('project=IS:default&sortBy=environment:production&sortOrder=desc')).toEqual([
      'bravo',
      'foxtrot',
      'alpha',
    ]);
    const page = await search('sortBy=environment:production&limit=2&offset=2');
    expect(page.features.map((f) => f.name)).toEqual(['delta', 'bravo']);
    expect(page.total).toBe(5);
    expect(await names('favoritesFirst=true&sortBy=environment:production', asUser(userCookie))).toEqual([
      'delta',
      'charlie',
      'alpha',
      'foxtrot',
      'bravo',
    ]);
  });

  it('defaults to createdAt ascending', async () => {
    expect(await names('sortOrder=desc')).toEqual([...ACTIVE_BY_CREATED].reverse());
  });

  it("favoritesFirst puts the caller's favorites first, in the sort", async () => {
    const user = asUser(userCookie);
    expect(await names('favoritesFirst=true&sortBy=name', user)).toEqual([
      'charlie',
      'delta',
      'alpha',
      'bravo',
      'foxtrot',
    ]);
    expect(await names('favoritesFirst=true&sortBy=name&sortOrder=desc', user)).toEqual([
      'delta',
      'charlie',
      'foxtrot',
      'bravo',
      'alpha',
    ]);
    expect(await names('favoritesFirst=false&sortBy=name', user)).toEqual([
      'alpha',
      'bravo',
      'charlie',
      'delta',
      'foxtrot',
    ]);
    // An API token has no favorites.
    expect(await names('favoritesFirst=true&sortBy=name')).toEqual([
      'alpha',
      'bravo',
      'charlie',
      'delta',
      'foxtrot',
    ]);
  });
});

describe('GET /api/admin/search/features: items', () => {
  it("answers each flag in the spec's search item shape", async () => {
    const body = await search('query=alpha', asUser(userCookie));
    expect(body.total).toBe(1);
    const alpha = body.features[0] as Record<string, unknown>;
    expect(Object.keys(alpha).sort()).toEqual(
      [
        'archivedAt',
        'createdAt',
        'createdBy',
        'dependencyType',
        'description',
        'environments',
        'favorite',
        'impressionData',
        'lifecycle',
        'name',
        'potentiallyStale',
        'project',
        'segments',
        'stale',
        'tags',
        'type',
      ].sort(),
    );
    expect(alpha).toMatchObject({
      name: 'alpha',
      type: 'release',
      description: 'Checkout 50%_off',
      project: 'default',
      stale: false,
      favorite: false,
      impressionData: false,
      createdAt: '2024-01-01T10:00:00.000Z',
      archivedAt: null,
      dependencyType: 'parent',
      segments: ['seg-a'],
      tags: [
        { type: 'simple', value: 'team-a' },
        { type: 'simple', value: 'team-b' },
      ],
      lifecycle: { stage: 'live', status: null },
    });
    expect((alpha.createdBy as { id: number }).id).toBe(7);
    expect((alpha.createdBy as { imageUrl: string }).imageUrl).toMatch(/^https:\/\/gravatar\.com\/avatar\//);
    expect(alpha.environments).toEqual([
      {
        name: 'development',
        enabled: true,
        type: 'development',
        sortOrder: 2,
        variantCount: 0,
        lastSeenAt: '2024-03-01T00:00:00.000Z',
        hasStrategies: true,
        hasEnabledStrategies: true,
        yes: 11,
        no: 3,
        changeRequestIds: [],
      },
      {
        name: 'production',
        enabled: false,
        type: 'production',
        sortOrder: 3,
        variantCount: 0,
        lastSeenAt: null,
        hasStrategies: false,
        hasEnabledStrategies: false,
        yes: 0,
        no: 0,
        changeRequestIds: [],
      },
    ]);
  });

  it('shows dependencies, disabled strategies, favorites and archived flags', async () => {
    const [charlie] = (await search('query=charlie', asUser(userCookie))).features;
    expect(charlie).toMatchObject({ favorite: true, dependencyType: null, segments: ['seg-a', 'seg-b'] });
    const prod = ((charlie?.environments ?? []) as { name: string }[]).find((e) => e.name === 'production');
    expect(prod).toMatchObject({ enabled: true, hasStrategies: true, hasEnabledStrategies: false });
    const [bravo] = (await search('query=bravo')).features;
    expect(bravo).toMatchObject({ dependencyType: 'child', stale: true, lifecycle: { stage: 'pre-live' } });
    const [echo] = (await search('archived=IS:true')).features;
    expect(echo?.archivedAt).not.toBeNull();
    expect(echo?.lifecycle).toMatchObject({ stage: 'archived' });
  });
});

describe('GET /api/admin/search/features: bad input', () => {
  const bad: [string, string][] = [
    ['project=default', 'project'],
    ['project=IS_MAYBE:default', 'project'],
    ['project=IS:', 'project'],
    ['type=release', 'type'],
    ['state=IS:fresh', 'state'],
    ['lifecycle=IS:done', 'lifecycle'],
    ['createdBy=IS:alice', 'createdBy'],
    ['createdBy=IS:99999999999', 'createdBy'],
    ['tag=INCLUDE:novalue', 'tag'],
    ['tag=HAS:simple:team-a', 'tag'],
    ['segment=IS:seg-a', 'segment'],
    ['status=development:on', 'status'],
    ['status=development', 'status'],
    ['status=development:enabled&status=x', 'status'],
    ['createdAt=IS_BEFORE:2024-02-30', 'createdAt'],
    ['createdAt=IS_AFTER:2024-01-01', 'createdAt'],
    ['createdAt=IS_BEFORE:yesterday', 'createdAt'],
    ['lastSeenAt=IS_ON_OR_AFTER:2024-13-01', 'lastSeenAt'],
    ['favorite=IS:maybe', 'favorite'],
    ['favoritesFirst=maybe', 'favoritesFirst'],
    ['archived=yes', 'archived'],
    ['sortBy=color', 'sortBy'],
    ['sortBy=environment:', 'sortBy'],
    ['sortOrder=up', 'sortOrder'],
    ['limit=abc', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=1.5', 'limit'],
    ['offset=abc', 'offset'],
    ['offset=-1', 'offset'],
    ['offset=99999999999', 'offset'],
  ];
  it.each(bad)('%s is a 400 naming %s', async (qs, param) => {
    const res = await t.send('GET', `${SEARCH}?${qs}`);
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.name).toBe('ValidationError');
    expect(body.details.map((d: { path: string }) => d.path)).toContain(`/query/${param}`);
  });

  it('needs a signed-in caller', async () => {
    const res = await t.send('GET', SEARCH, undefined, { authorization: undefined });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/admin/search/features: rate', () => {
  it('answers 200 searches at once, none refused (no rate limit for people)', async () => {
    const user = asUser(userCookie);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        t.send('GET', `${SEARCH}?query=${['a', 'team', 'delta', 'x'][i % 4]}&sortBy=name`, undefined, user),
      ),
    );
    const elapsed = Date.now() - started;
    expect(answers.map((r) => r.statusCode)).toEqual(Array(200).fill(200));
    expect(answers.some((r) => r.headers['x-ratelimit-limit'] || r.headers['ratelimit-limit'])).toBe(false);
    // ~1.5 s on PostgreSQL and ~2-3 s on PGlite on a shared 2-core machine (one statement per search,
    // planned each time); the bound only catches a pathological slowdown, the point is no refusal.
    expect(elapsed).toBeLessThan(10_000);
  });
});

describe('GET /api/admin/search/features: paging', () => {
  let p: TestApp;
  const COUNT = 123;
  beforeAll(async () => {
    p = await startTestApp();
    // Set-based: created_at repeats every 10 flags, so the tie-break decides much of the order.
    await p.database.session((run) =>
      run(`
        INSERT INTO features (name, project, type, stale, created_at, created_by_user_id)
        SELECT 'page-' || lpad(i::text, 3, '0'), 'default',
               (array['release','experiment','operational'])[1 + i % 3], i % 4 = 0,
               timestamptz '2024-01-01' + ((i % 10) || ' hours')::interval, -42
        FROM generate_series(1, ${COUNT}) i;
        INSERT INTO feature_environments (feature_name, environment, enabled, last_seen_at)
        SELECT f.name, e.environment, e.environment = 'development' AND right(f.name, 1) IN ('1', '4', '7'),
               CASE WHEN right(f.name, 1) = '2' THEN timestamptz '2024-02-01' + (right(f.name, 2) || ' minutes')::interval END
        FROM features f CROSS JOIN (VALUES ('development'), ('production')) e(environment);
        UPDATE features f SET last_seen_at = (SELECT max(last_seen_at) FROM feature_environments fe
          WHERE fe.feature_name = f.name) WHERE name LIKE 'page-%';
        INSERT INTO events (type, created_by) VALUES ('feature-created', 'test');
      `),
    );
  });
  afterAll(() => p.close());

  const pageThrough = async (qs: string, limit: number) => {
    const seen: string[] = [];
    for (let offset = 0; offset < COUNT + limit; offset += limit) {
      const res = await p.send('GET', `${SEARCH}?${qs}&limit=${limit}&offset=${offset}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.total).toBe(COUNT);
      seen.push(...body.features.map((f: { name: string }) => f.name));
    }
    return seen;
  };

  const sortBys = ['createdAt', 'name', 'type', 'stale', 'project', 'lastSeenAt', 'environment:development'];
  it.each(sortBys.flatMap((s) => [`sortBy=${s}&sortOrder=asc`, `sortBy=${s}&sortOrder=desc`]))(
    '%s: pages of 10 hold every flag once, in the order of one large page',
    async (qs) => {
      const paged = await pageThrough(qs, 10);
      expect(paged).toHaveLength(COUNT);
      expect(new Set(paged).size).toBe(COUNT);
      const res = await p.send('GET', `${SEARCH}?${qs}&limit=1000`);
      expect(res.json().features.map((f: { name: string }) => f.name)).toEqual(paged);
    },
  );

  it('orders by creation time, then name; an offset past the end is an empty page with the total', async () => {
    const first = (await p.send('GET', `${SEARCH}?limit=3`)).json();
    expect(first.features.map((f: { name: string }) => f.name)).toEqual(['page-010', 'page-020', 'page-030']);
    const past = (await p.send('GET', `${SEARCH}?offset=500`)).json();
    expect(past).toEqual({ features: [], total: COUNT });
    const dflt = (await p.send('GET', SEARCH)).json();
    expect(dflt.features).toHaveLength(50);
  });
});

describe('lastSeenAt from real SDK metrics', () => {
  it('a flag an SDK reports is found by lastSeenAt and sorted first by lastSeenAt desc', async () => {
    const app = await startTestApp();
    try {
      await api(app).createFlag('default', { name: 'seen-by-sdk' });
      await api(app).createFlag('default', { name: 'never-seen' });
      const token = await configSql(app).addToken('client', ['*'], 'development');
      const start = new Date().toISOString();
      const metrics = await app.send(
        'POST',
        '/api/client/metrics',
        {
          appName: 'web',
          instanceId: 'i1',
          bucket: { start, stop: start, toggles: { 'seen-by-sdk': { yes: 1, no: 0 } } },
        },
        { authorization: token },
      );
      expect(metrics.statusCode).toBe(202);
      const today = start.slice(0, 10);
      const names = async (params: string) =>
        (await app.send('GET', `/api/admin/search/features?${params}`))
          .json()
          .features.map((f: { name: string }) => f.name);
      expect(await names(`lastSeenAt=IS_ON_OR_AFTER:${today}`)).toEqual(['seen-by-sdk']);
      expect(await names('sortBy=lastSeenAt&sortOrder=desc')).toEqual(['seen-by-sdk', 'never-seen']);
      expect(await names('sortBy=lastSeenAt&sortOrder=asc')).toEqual(['seen-by-sdk', 'never-seen']);
    } finally {
      await app.close();
    }
  });
});
