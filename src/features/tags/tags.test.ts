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

const newType = async () => {
  const name = uniqueName('tt');
  expect((await t.send('POST', '/api/admin/tag-types', { name })).statusCode).toBe(201);
  return name;
};

describe('tags', () => {
  it('creates (trimmed), reads, lists and deletes a tag with events', async () => {
    const value = uniqueName('v');
    const res = await t.send('POST', '/api/admin/tags', { type: 'simple', value: `  ${value} ` });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ version: 1, tag: { type: 'simple', value } });
    expect(await a.lastEvent('tag-created')).toMatchObject({
      data: { type: 'simple', value },
      pre_data: null,
    });
    expect((await t.send('GET', `/api/admin/tags/simple/${value}`)).json()).toEqual({
      version: 1,
      tag: { type: 'simple', value },
    });
    expect((await t.send('GET', '/api/admin/tags')).json().tags).toContainEqual({ type: 'simple', value });
    expect((await t.send('GET', '/api/admin/tags/simple')).json().tags).toContainEqual({
      type: 'simple',
      value,
    });
    const del = await t.send('DELETE', `/api/admin/tags/simple/${value}`);
    expect(del.statusCode).toBe(200);
    expect(await a.lastEvent('tag-deleted')).toMatchObject({
      data: null,
      pre_data: { type: 'simple', value },
    });
    expect((await t.send('GET', `/api/admin/tags/simple/${value}`)).statusCode).toBe(404);
  });

  it('answers 409 for a duplicate and 404 for an unknown type, storing nothing', async () => {
    const value = uniqueName('v');
    await t.send('POST', '/api/admin/tags', { type: 'simple', value });
    const before = await a.count('events');
    const dup = await t.send('POST', '/api/admin/tags', { type: 'simple', value });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().name).toBe('NameExistsError');
    const unknown = await t.send('POST', '/api/admin/tags', { type: 'no-such-type', value });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().name).toBe('NotFoundError');
    expect(await a.count('tags', 'type = $1', ['no-such-type'])).toBe(0);
    expect(await a.count('events')).toBe(before);
  });

  it.each([
    ['a 1-character value', { type: 'simple', value: ' x ' }, '/body/value'],
    ['a 51-character value', { type: 'simple', value: 'y'.repeat(51) }, '/body/value'],
    ['a missing type', { value: 'abc' }, '/body/type'],
    ['a numeric value', { type: 'simple', value: 12 }, '/body/value'],
  ])('refuses %s with 400', async (_label, body, path) => {
    const before = await a.count('tags');
    const res = await t.send('POST', '/api/admin/tags', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().name).toBe('ValidationError');
    expect(res.json().details[0].path).toBe(path);
    expect(await a.count('tags')).toBe(before);
  });

  it('answers 404 for unknown tags and types on read and delete', async () => {
    expect((await t.send('GET', '/api/admin/tags/simple/nope-nope')).statusCode).toBe(404);
    expect((await t.send('GET', '/api/admin/tags/no-such-type')).statusCode).toBe(404);
    const del = await t.send('DELETE', '/api/admin/tags/simple/nope-nope');
    expect(del.statusCode).toBe(404);
    expect(del.json().name).toBe('NotFoundError');
  });

  it('answers 401 without a token', async () => {
    for (const [m, url] of [
      ['GET', '/api/admin/tags'],
      ['POST', '/api/admin/tags'],
      ['DELETE', '/api/admin/tags/simple/ab'],
    ] as const) {
      const res = await t.send(m, url, m === 'POST' ? { type: 'simple', value: 'ab' } : undefined, {
        authorization: undefined,
      });
      expect(res.statusCode).toBe(401);
    }
  });
});

describe('tag types', () => {
  it('creates, reads, updates (partial, null clears) and deletes with events', async () => {
    const name = uniqueName('tt');
    const res = await t.send('POST', '/api/admin/tag-types', {
      name,
      description: 'd',
      icon: 'i',
      color: '#AABBCC',
    });
    expect(res.statusCode).toBe(201);
    const created = { name, description: 'd', icon: 'i', color: '#AABBCC' };
    expect(res.json()).toEqual(created);
    expect(await a.lastEvent('tag-type-created')).toMatchObject({ data: created });
    expect((await t.send('GET', `/api/admin/tag-types/${name}`)).json()).toEqual(created);
    expect((await t.send('GET', '/api/admin/tag-types')).json().tagTypes).toContainEqual(created);

    const upd = await t.send('PUT', `/api/admin/tag-types/${name}`, { description: 'new', color: null });
    expect(upd.statusCode).toBe(200);
    const updated = { name, description: 'new', icon: 'i', color: null };
    expect((await t.send('GET', `/api/admin/tag-types/${name}`)).json()).toEqual(updated);
    expect(await a.lastEvent('tag-type-updated')).toMatchObject({ data: updated, pre_data: created });

    await t.send('POST', '/api/admin/tags', { type: name, value: 'cascade' });
    expect((await t.send('DELETE', `/api/admin/tag-types/${name}`)).statusCode).toBe(200);
    expect(await a.lastEvent('tag-type-deleted')).toMatchObject({ pre_data: updated });
    expect((await t.send('GET', `/api/admin/tag-types/${name}`)).statusCode).toBe(404);
    expect(await a.count('tags', 'type = $1', [name])).toBe(0);
  });

  it('validate answers valid for a free name, 409 for a taken one, 400 for a bad one', async () => {
    const name = uniqueName('tt');
    const ok = await t.send('POST', '/api/admin/tag-types/validate', { name });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ valid: true, tagType: { name, description: null, icon: null, color: null } });
    expect(await a.count('tag_types', 'name = $1', [name])).toBe(0);
    expect((await t.send('POST', '/api/admin/tag-types/validate', { name: 'simple' })).statusCode).toBe(409);
    expect((await t.send('POST', '/api/admin/tag-types/validate', { name: 'a b' })).statusCode).toBe(400);
  });

  it.each([
    ['a 1-character name', { name: 'x' }, '/body/name'],
    ['a name with a slash', { name: 'a/b' }, '/body/name'],
    ['a 51-character name', { name: 'z'.repeat(51) }, '/body/name'],
    ['a bad colour', { name: 'good-name', color: 'red' }, '/body/color'],
  ])('create refuses %s with 400', async (_label, body, path) => {
    const res = await t.send('POST', '/api/admin/tag-types', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe(path);
  });

  it('create answers 409 for a taken name, update/delete 404 for an unknown one, nothing recorded', async () => {
    const before = await a.count('events');
    const dup = await t.send('POST', '/api/admin/tag-types', { name: 'simple' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().name).toBe('NameExistsError');
    expect((await t.send('PUT', '/api/admin/tag-types/nope-nope', { description: 'x' })).statusCode).toBe(
      404,
    );
    expect((await t.send('DELETE', '/api/admin/tag-types/nope-nope')).statusCode).toBe(404);
    expect((await t.send('GET', '/api/admin/tag-types/nope-nope')).statusCode).toBe(404);
    expect(await a.count('events')).toBe(before);
  });

  it('answers 401 without a token', async () => {
    const res = await t.send('POST', '/api/admin/tag-types', { name: 'abc' }, { authorization: undefined });
    expect(res.statusCode).toBe(401);
  });
});

describe('tags on a flag', () => {
  it('adds (creating the tag), lists, and removes with feature-tagged/untagged', async () => {
    const flag = uniqueName();
    await a.createFlag('default', { name: flag });
    const type = await newType();
    const res = await t.send('POST', `/api/admin/features/${flag}/tags`, { type, value: 'blue' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ type, value: 'blue' });
    expect(await a.count('tags', 'type = $1', [type])).toBe(1);
    expect((await t.send('GET', `/api/admin/features/${flag}/tags`)).json()).toEqual({
      version: 1,
      tags: [{ type, value: 'blue' }],
    });
    const events = (await a.flagEvents(flag)).events;
    expect(events[0]).toMatchObject({
      type: 'feature-tagged',
      data: { type, value: 'blue' },
      project: 'default',
    });

    const dup = await t.send('POST', `/api/admin/features/${flag}/tags`, { type, value: 'blue' });
    expect(dup.statusCode).toBe(409);

    const del = await t.send('DELETE', `/api/admin/features/${flag}/tags/${type}/blue`);
    expect(del.statusCode).toBe(200);
    expect((await a.flagEvents(flag)).events[0]).toMatchObject({
      type: 'feature-untagged',
      preData: { type, value: 'blue' },
    });
    expect((await t.send('DELETE', `/api/admin/features/${flag}/tags/${type}/blue`)).statusCode).toBe(404);
  });

  it('PUT adds and removes lists and answers the tags now on the flag', async () => {
    const flag = uniqueName();
    await a.createFlag('default', { name: flag, tags: [{ type: 'simple', value: 'old-one' }] });
    const res = await t.send('PUT', `/api/admin/features/${flag}/tags`, {
      addedTags: [{ type: 'simple', value: 'new-one' }],
      removedTags: [
        { type: 'simple', value: 'old-one' },
        { type: 'simple', value: 'never-there' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: 1, tags: [{ type: 'simple', value: 'new-one' }] });
    const types = (await a.flagEvents(flag)).events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['feature-untagged', 'feature-tagged']);
  });

  it('refuses unknown flags and types (404) and bad values (400), leaving nothing', async () => {
    const flag = uniqueName();
    await a.createFlag('default', { name: flag });
    const before = await a.count('events');
    expect((await t.send('GET', '/api/admin/features/no-such-flag/tags')).statusCode).toBe(404);
    expect(
      (await t.send('POST', '/api/admin/features/no-such-flag/tags', { type: 'simple', value: 'ab' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.send('POST', `/api/admin/features/${flag}/tags`, { type: 'no-such-type', value: 'ab' }))
        .statusCode,
    ).toBe(404);
    const bad = await t.send('POST', `/api/admin/features/${flag}/tags`, { type: 'simple', value: 'a' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('/body/value');
    const badPut = await t.send('PUT', `/api/admin/features/${flag}/tags`, {
      addedTags: [
        { type: 'simple', value: 'fine-value' },
        { type: 'no-such-type', value: 'ab' },
      ],
      removedTags: [],
    });
    expect(badPut.statusCode).toBe(404);
    expect(await a.count('feature_tag', 'feature_name = $1', [flag])).toBe(0);
    expect(await a.count('events')).toBe(before);
    expect(
      (
        await t.send(
          'POST',
          `/api/admin/features/${flag}/tags`,
          { type: 'simple', value: 'ab' },
          { authorization: undefined },
        )
      ).statusCode,
    ).toBe(401);
  });
});

describe('PUT /api/admin/projects/:projectId/tags', () => {
  it('adds and removes tags on several flags of the project, all or nothing', async () => {
    const [one, two] = [uniqueName('bt'), uniqueName('bt')];
    for (const name of [one, two])
      await t.send('POST', '/api/admin/projects/default/features', {
        name,
        tags: [{ type: 'simple', value: 'old' }],
      });
    const tagsOf = async (name: string) =>
      (await t.send('GET', `/api/admin/features/${name}/tags`))
        .json()
        .tags.map((x: { value: string }) => x.value)
        .sort();
    const fresh = uniqueName('v');
    const res = await t.send('PUT', '/api/admin/projects/default/tags', {
      features: [one, two],
      tags: {
        addedTags: [{ type: 'simple', value: fresh }],
        removedTags: [{ type: 'simple', value: 'old' }],
      },
    });
    expect(res.statusCode).toBe(200);
    expect(await tagsOf(one)).toEqual([fresh]);
    expect(await tagsOf(two)).toEqual([fresh]);
    const bad = await t.send('PUT', '/api/admin/projects/default/tags', {
      features: [one, 'no-such-flag'],
      tags: { addedTags: [{ type: 'simple', value: 'never' }], removedTags: [] },
    });
    expect(bad.statusCode).toBe(404);
    expect(await tagsOf(one)).toEqual([fresh]);
    expect((await t.send('PUT', '/api/admin/projects/default/tags', { features: [one] })).statusCode).toBe(
      400,
    );
  });
});
