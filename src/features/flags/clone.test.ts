import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';

const k = flagTests();
const { NO_AUTH, sql, post, flagUrl } = k;

/** A source flag with a tag, variants, a strategy (with a segment) and a parent, set up in SQL. */
async function richFlag() {
  const name = uniqueName();
  const parent = uniqueName('parent');
  await k.a.createFlag('default', { name: parent });
  await k.a.createFlag('default', {
    name,
    type: 'experiment',
    description: 'source',
    impressionData: true,
    tags: [{ type: 'simple', value: 'cloned' }],
  });
  const variants = [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }];
  await sql(`UPDATE feature_environments SET enabled = true, variants = $2 WHERE feature_name = $1`, [
    name,
    JSON.stringify(variants),
  ]);
  const segment = await sql(`INSERT INTO segments (name) VALUES ($1) RETURNING id`, [uniqueName('seg')]);
  await sql(
    `INSERT INTO feature_strategies (id, feature_name, environment, strategy_name, parameters, constraints)
     VALUES ($1, $2, 'development', 'flexibleRollout', $3, '[{"contextName":"userId","operator":"IN","values":["1"]}]')`,
    [`s-${name}`, name, JSON.stringify({ rollout: '50', stickiness: 'default', groupId: name })],
  );
  await sql(`INSERT INTO feature_strategy_segment (feature_strategy_id, segment_id) VALUES ($1, $2)`, [
    `s-${name}`,
    segment[0]?.id,
  ]);
  await sql(`INSERT INTO feature_dependencies (parent, child, enabled) VALUES ($1, $2, true)`, [
    parent,
    name,
  ]);
  return { name, parent, segmentId: Number(segment[0]?.id), variants };
}

describe('POST /api/admin/projects/:projectId/features/:featureName/clone', () => {
  it('copies metadata, tags, variants, strategies (new id, groupId replaced), segments and parents', async () => {
    const src = await richFlag();
    const copy = uniqueName('copy');
    const res = await post(`${flagUrl(src.name)}/clone`, { name: copy });
    expect(res.statusCode).toBe(200);
    const flag = res.json();
    expect(flag).toMatchObject({
      name: copy,
      project: 'default',
      type: 'experiment',
      description: 'source',
      impressionData: true,
      archived: false,
      tags: [{ type: 'simple', value: 'cloned' }],
      dependencies: [{ feature: src.parent, enabled: true }],
      lifecycle: { stage: 'initial' },
    });
    const dev = flag.environments.find((e: { name: string }) => e.name === 'development');
    expect(dev.enabled).toBe(false);
    expect(dev.variants).toEqual(src.variants);
    expect(dev.strategies).toHaveLength(1);
    expect(dev.strategies[0].id).not.toBe(`s-${src.name}`);
    expect(dev.strategies[0]).toMatchObject({
      name: 'flexibleRollout',
      featureName: copy,
      parameters: { rollout: '50', stickiness: 'default', groupId: copy },
      segments: [src.segmentId],
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }],
    });
    const events = (await k.a.flagEvents(copy)).events;
    expect(events.map((e) => e.type).reverse()).toEqual([
      'feature-created',
      'feature-strategy-add',
      'feature-dependency-added',
    ]);
    expect(events[0]?.data).toEqual({ feature: src.parent, enabled: true });
  });

  it('keeps groupId with replaceGroupId false', async () => {
    const src = await richFlag();
    const copy = uniqueName('copy');
    const res = await post(`${flagUrl(src.name)}/clone`, { name: copy, replaceGroupId: false });
    expect(res.statusCode).toBe(200);
    const dev = res.json().environments.find((e: { name: string }) => e.name === 'development');
    expect(dev.strategies[0].parameters.groupId).toBe(src.name);
  });

  it('409 for a taken name, 404 for unknown source/project, 400 for a bad name, 401; nothing left', async () => {
    const src = await richFlag();
    const before = await k.a.count('events');
    const flags = await k.a.count('features');
    const taken = await post(`${flagUrl(src.name)}/clone`, { name: src.parent });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().name).toBe('NameExistsError');
    const unknown = await post(`${flagUrl(uniqueName())}/clone`, { name: uniqueName() });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().name).toBe('NotFoundError');
    expect((await post(`${flagUrl(src.name, 'other')}/clone`, { name: uniqueName() })).statusCode).toBe(404);
    const bad = await post(`${flagUrl(src.name)}/clone`, { name: 'has space' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().name).toBe('ValidationError');
    expect((await post(`${flagUrl(src.name)}/clone`, {})).statusCode).toBe(400);
    const anon = await post(`${flagUrl(src.name)}/clone`, { name: uniqueName() }, NO_AUTH);
    expect(anon.statusCode).toBe(401);
    expect(await k.a.count('events')).toBe(before);
    expect(await k.a.count('features')).toBe(flags);
  });
});
