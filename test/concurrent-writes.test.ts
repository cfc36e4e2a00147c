import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionRetries } from '../src/platform/db/index.js';
import { startTestApp, type TestApp, uniqueName } from './harness.js';

/**
 * Issue 7: concurrent writes to one flag must not deadlock (a 500 with 40P01). Each round creates
 * a flag and then sends about a dozen writes at it at once (on/off of both environments, variants
 * PATCH and PUT, strategy add/update/delete, a tag, description, stale, a dependency), along with
 * writes to the previous round's flag and to the shared parent flag. Every write must succeed,
 * record its event, and the flag must end in the one state those writes lead to.
 *
 * On PostgreSQL the requests really run at once (the test pool has 5 connections), and the test
 * also checks that no transaction had to be retried: transaction() would hide a deadlock from the
 * client, and a retry here means a write path broke the lock order (see lockFlag). PGlite has one
 * connection, so there the transactions run one after the other; it is cheap, so it runs too.
 */
const ROUNDS = 25;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const flagUrl = (flag: string) => `/api/admin/projects/default/features/${flag}`;
const envUrl = (flag: string, env: string) => `${flagUrl(flag)}/environments/${env}`;
const variant = (name: string) => ({ name, weight: 0, weightType: 'variable', stickiness: 'default' });

type Write = [method: string, url: string, payload?: unknown];

async function ok(method: string, url: string, payload?: unknown) {
  const res = await t.send(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown>;
}

/** Sends the writes at once; answers what each got, so a failure names every failed request. */
async function burst(writes: Write[]) {
  const answers = await Promise.all(
    writes.map(async ([method, url, payload]) => {
      const res = await t.send(method, url, payload);
      return { request: `${method} ${url}`, status: res.statusCode, body: res.body };
    }),
  );
  return answers.filter((a) => a.status >= 300);
}

/** The flag's events as `type` or `type@environment`, with their counts. */
async function eventCounts(flag: string): Promise<Record<string, number>> {
  const rows = await t.database.session((run) =>
    run(
      `SELECT type, environment, count(*)::int AS n FROM events WHERE feature_name = $1
       GROUP BY type, environment`,
      [flag],
    ),
  );
  return Object.fromEntries(
    rows.map((r) => [r.environment ? `${r.type}@${r.environment}` : String(r.type), Number(r.n)]),
  );
}

interface FlagView {
  description: string | null;
  stale: boolean;
  tags: { type: string; value: string }[];
  dependencies: { feature: string }[];
  children: string[];
  lifecycle: { stage: string };
  environments: {
    name: string;
    enabled: boolean;
    variants: { name: string }[];
    strategies: { id: string; name: string; parameters: Record<string, string> }[];
  }[];
}
const view = async (flag: string) => (await ok('GET', flagUrl(flag))) as unknown as FlagView;
const env = (v: FlagView, name: string) => v.environments.find((e) => e.name === name)!;

describe('concurrent writes to one flag (issue 7)', () => {
  it('all succeed, each records its event, and the flag ends consistent', { timeout: 180_000 }, async () => {
    const retriesBefore = transactionRetries();
    const parent = uniqueName('parent');
    await ok('POST', '/api/admin/projects/default/features', { name: parent });
    let prev: string | undefined;

    for (let round = 0; round < ROUNDS; round++) {
      const flag = uniqueName('busy');
      await ok('POST', '/api/admin/projects/default/features', { name: flag });
      const dev = envUrl(flag, 'development');
      const rollout = (value: string) => ({
        name: 'flexibleRollout',
        parameters: { rollout: value, stickiness: 'default', groupId: flag },
      });
      const kept = (await ok('POST', `${dev}/strategies`, rollout('10'))).id as string;
      const doomed = (await ok('POST', `${dev}/strategies`, { name: 'default' })).id as string;

      const writes: Write[] = [
        ['POST', `${dev}/on`],
        ['POST', `${envUrl(flag, 'production')}/on`],
        ['PATCH', `${dev}/variants`, [{ op: 'add', path: '/-', value: variant('a') }]],
        ['PUT', `${envUrl(flag, 'production')}/variants`, [variant('b')]],
        ['POST', `${dev}/strategies`, { name: 'default' }],
        ['PUT', `${dev}/strategies/${kept}`, rollout('90')],
        ['DELETE', `${dev}/strategies/${doomed}`],
        ['POST', `/api/admin/features/${flag}/tags`, { type: 'simple', value: `tag-${round}` }],
        ['PUT', flagUrl(flag), { description: `round ${round}` }],
        ['POST', '/api/admin/projects/default/stale', { features: [flag], stale: true }],
        ['POST', `${flagUrl(flag)}/dependencies`, { feature: parent }],
        ['POST', `${envUrl(parent, 'development')}/${round % 2 === 0 ? 'on' : 'off'}`],
      ];
      if (prev) {
        writes.push(
          ['POST', `${envUrl(prev, 'development')}/off`],
          ['DELETE', `${flagUrl(prev)}/dependencies/${parent}`],
          ['DELETE', `/api/admin/features/${prev}/tags/simple/tag-${round - 1}`],
          [
            'PATCH',
            `${envUrl(prev, 'production')}/variants`,
            [{ op: 'add', path: '/-', value: variant('c') }],
          ],
        );
      }
      expect(await burst(writes), `round ${round}`).toEqual([]);

      expect(await eventCounts(flag), `events of ${flag}`).toEqual({
        'feature-created': 1,
        'feature-strategy-add@development': 3,
        // Enabling production, which has no strategy yet, adds the default one.
        'feature-strategy-add@production': 1,
        'feature-strategy-update@development': 1,
        'feature-strategy-remove@development': 1,
        'feature-environment-enabled@development': 1,
        'feature-environment-enabled@production': 1,
        'feature-environment-variants-updated@development': 1,
        'feature-environment-variants-updated@production': 1,
        'feature-tagged': 1,
        'feature-metadata-updated': 1,
        'feature-stale-on': 1,
        'feature-dependency-added': 1,
      });
      const v = await view(flag);
      expect(v).toMatchObject({
        description: `round ${round}`,
        stale: true,
        tags: [{ type: 'simple', value: `tag-${round}` }],
        dependencies: [{ feature: parent }],
        lifecycle: { stage: 'live' },
      });
      const development = env(v, 'development');
      expect(development.enabled).toBe(true);
      expect(development.variants.map((x) => x.name)).toEqual(['a']);
      expect(development.strategies.map((s) => s.id)).not.toContain(doomed);
      expect(development.strategies).toHaveLength(2);
      expect(development.strategies.find((s) => s.id === kept)?.parameters.rollout).toBe('90');
      const production = env(v, 'production');
      expect(production.enabled).toBe(true);
      expect(production.variants.map((x) => x.name)).toEqual(['b']);
      expect(production.strategies.map((s) => s.name)).toEqual(['flexibleRollout']);

      if (prev) {
        const before = await view(prev);
        expect(env(before, 'development').enabled).toBe(false);
        expect(env(before, 'production').variants.map((x) => x.name)).toEqual(['b', 'c']);
        expect(before.dependencies).toEqual([]);
        expect(before.tags).toEqual([]);
        expect(await eventCounts(prev)).toMatchObject({
          'feature-environment-disabled@development': 1,
          'feature-environment-variants-updated@production': 2,
          'feature-dependency-removed': 1,
          'feature-untagged': 1,
        });
      }
      prev = flag;
    }

    const p = await view(parent);
    expect(p.children).toEqual([prev]);
    expect(env(p, 'development').enabled).toBe(ROUNDS % 2 === 1);
    expect(await eventCounts(parent)).toMatchObject({
      'feature-environment-enabled@development': Math.ceil(ROUNDS / 2),
      'feature-environment-disabled@development': Math.floor(ROUNDS / 2),
    });
    expect(transactionRetries() - retriesBefore, 'transactions retried after a deadlock').toBe(0);
  });
});

describe('racing creates of one name (issue 17)', () => {
  it('exactly one of 20 simultaneous creates of a flag, a project and a segment succeeds, with one event', async () => {
    const flag = uniqueName('raced');
    const project = uniqueName('raced-p').replace(/[^a-z0-9-]/gi, '-');
    const segment = uniqueName('raced-s');
    const creates: [string, string, unknown, string, string][] = [
      ['flag', '/api/admin/projects/default/features', { name: flag }, 'feature-created', flag],
      ['project', '/api/admin/projects', { id: project, name: project }, 'project-created', project],
      ['segment', '/api/admin/segments', { name: segment, constraints: [] }, 'segment-created', segment],
    ];
    for (const [what, url, body, type, name] of creates) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => t.send('POST', url, body)));
      const codes = answers.map((a) => a.statusCode).sort();
      expect(
        codes.filter((c) => c < 300),
        `${what}: ${codes.join(',')}`,
      ).toHaveLength(1);
      const refused = answers.filter((a) => a.statusCode >= 300);
      expect(new Set(refused.map((a) => `${a.statusCode} ${a.json().name}`)), what).toEqual(
        new Set(['409 NameExistsError']),
      );
      const events = await t.send('GET', `/api/admin/events?type=${type}&limit=1000`);
      const mine = (events.json().events as { type: string; data?: { name?: string; id?: string } }[]).filter(
        (e) => e.type === type && (e.data?.name === name || e.data?.id === name),
      );
      expect(mine, `${what}: one ${type} event`).toHaveLength(1);
    }
  });
});
