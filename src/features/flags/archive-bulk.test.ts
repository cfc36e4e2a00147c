import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

const k = flagTests();
const { NO_AUTH, sql, post, newFlag, eventTypes } = k;
const ARCHIVE = '/api/admin/projects/default/archive';
const archivedOf = async (names: string[]) =>
  k.a.count('features', 'name = ANY($1) AND archived_at IS NOT NULL', [names]);

describe('bulk archive of a project', () => {
  it('archives the listed flags in one go (202), ignoring unknown and archived names, an event per flag', async () => {
    const [a, b, gone] = [await newFlag(), await newFlag(), await newFlag()];
    expect((await k.send('DELETE', k.flagUrl(gone))).statusCode).toBe(202);
    const res = await post(ARCHIVE, { features: [b, a, gone, uniqueName(), a] });
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe('');
    expect(await archivedOf([a, b])).toBe(2);
    for (const name of [a, b]) {
      expect(await eventTypes(name)).toEqual(['feature-archived', 'feature-created']);
      expect((await k.a.getFlag('default', name)).json().lifecycle.stage).toBe('archived');
    }
    expect((await eventTypes(gone)).filter((t) => t === 'feature-archived')).toHaveLength(1);
  });

  it('a flag of another project refuses all (403), nothing archived, nothing recorded', async () => {
    await post('/api/admin/projects', { id: 'bulk-other', name: 'Other' });
    const elsewhere = uniqueName();
    await k.a.createFlag('bulk-other', { name: elsewhere });
    const mine = await newFlag();
    const before = await k.a.count('events');
    const res = await post(ARCHIVE, { features: [mine, elsewhere] });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      name: 'InvalidOperationError',
      details: [{ affectedItems: [elsewhere] }],
    });
    expect(await archivedOf([mine, elsewhere])).toBe(0);
    expect(await k.a.count('events')).toBe(before);
  });

  it('validate names parents that would orphan children; archive refuses them, accepts parent and child together', async () => {
    const [parent, child, lone] = [await newFlag(), await newFlag(), await newFlag()];
    await sql(`INSERT INTO feature_dependencies (parent, child) VALUES ($1, $2)`, [parent, child]);
    const validate = async (features: string[]) => (await post(`${ARCHIVE}/validate`, { features })).json();
    expect(await validate([parent, lone])).toEqual({
      parentsWithChildFeatures: [parent],
      hasDeletedDependencies: true,
    });
    expect(await validate([parent, child])).toEqual({
      parentsWithChildFeatures: [],
      hasDeletedDependencies: true,
    });
    expect(await validate([lone])).toEqual({ parentsWithChildFeatures: [], hasDeletedDependencies: false });

    const refused = await post(ARCHIVE, { features: [parent, lone] });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().name).toBe('InvalidOperationError');
    expect(await archivedOf([parent, lone])).toBe(0);

    expect((await post(ARCHIVE, { features: [parent, child] })).statusCode).toBe(202);
    expect(await archivedOf([parent, child])).toBe(2);
    expect(await k.a.count('feature_dependencies', 'parent = $1', [parent])).toBe(0);
    expect(await eventTypes(child)).toContain('feature-dependency-removed');
  });

  it('400 for a bad body, 401 without credential, 403 for a Viewer', async () => {
    const name = await newFlag();
    for (const body of [{}, { features: 'x' }, { features: [''] }]) {
      expect((await post(ARCHIVE, body)).statusCode).toBe(400);
      expect((await post(`${ARCHIVE}/validate`, body)).statusCode).toBe(400);
    }
    expect((await post(ARCHIVE, { features: [name] }, NO_AUTH)).statusCode).toBe(401);
    const viewer = await createUser(k.t, 'Viewer');
    const headers = asUser(await login(k.t, viewer.username));
    const refused = await post(ARCHIVE, { features: [name] }, headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().name).toBe('NoAccessError');
    expect((await post(`${ARCHIVE}/validate`, { features: [name] }, headers)).statusCode).toBe(403);
    expect(await archivedOf([name])).toBe(0);
  });
});
