import { describe, expect, it } from 'vitest';
import { flagTests } from '../../../test/flag-tests.js';
import { uniqueName } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

const k = flagTests();
const { flagUrl, newFlag, eventTypes } = k;
const patch = (url: string, payload: unknown, headers = {}) =>
  k.t.request({ method: 'PATCH', url, payload: payload as object, headers });

describe('PATCH a flag (JSON Patch)', () => {
  it('changes description, type and impressionData: 200 with the flag, feature-metadata-updated', async () => {
    const name = await newFlag({ description: 'old' });
    const res = await patch(flagUrl(name), [
      { op: 'replace', path: '/description', value: 'new' },
      { op: 'replace', path: '/type', value: 'kill-switch' },
      { op: 'replace', path: '/impressionData', value: true },
    ]);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name, description: 'new', type: 'kill-switch', impressionData: true });
    expect((await k.a.getFlag('default', name)).json()).toMatchObject({
      description: 'new',
      type: 'kill-switch',
    });
    expect(await k.a.lastEvent('feature-metadata-updated')).toMatchObject({
      feature_name: name,
      data: { description: 'new', type: 'kill-switch', impressionData: true },
      pre_data: { description: 'old', type: 'release', impressionData: false },
    });
  });

  it('stale and archived record feature-stale-on and feature-archived', async () => {
    const name = await newFlag();
    const res = await patch(flagUrl(name), [{ op: 'replace', path: '/stale', value: true }]);
    expect(res.json().stale).toBe(true);
    expect((await eventTypes(name))[0]).toBe('feature-stale-on');
    const archived = await patch(flagUrl(name), [{ op: 'replace', path: '/archived', value: true }]);
    expect(archived.statusCode).toBe(200);
    expect(archived.json().archived).toBe(true);
    expect((await eventTypes(name))[0]).toBe('feature-archived');
  });

  it('a failing test op, an unknown or badly typed field, a renamed flag or moved project: 400, nothing changes', async () => {
    const name = await newFlag({ description: 'keep' });
    const before = await k.a.count('events');
    for (const ops of [
      [
        { op: 'test', path: '/description', value: 'other' },
        { op: 'replace', path: '/description', value: 'x' },
      ],
      [{ op: 'add', path: '/enabled', value: true }],
      [{ op: 'replace', path: '/type', value: 'no-such-type' }],
      [{ op: 'replace', path: '/stale', value: 'yes' }],
      [{ op: 'replace', path: '/name', value: 'renamed' }],
      [{ op: 'replace', path: '/project', value: 'other' }],
      [{ op: 'remove', path: '/nothing' }],
      [{ op: 'frobnicate', path: '/description' }],
      { op: 'replace', path: '/description', value: 'not an array' },
    ]) {
      const res = await patch(flagUrl(name), ops);
      expect(res.statusCode, JSON.stringify(ops)).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    expect(await k.a.count('events')).toBe(before);
    expect((await k.a.getFlag('default', name)).json().description).toBe('keep');
  });

  it('variants: 403; unknown flag or other project: 404; a Viewer: 403', async () => {
    const name = await newFlag();
    const variants = await patch(flagUrl(name), [{ op: 'add', path: '/variants', value: [] }]);
    expect(variants.statusCode).toBe(403);
    expect(variants.json().name).toBe('InvalidOperationError');
    const ops = [{ op: 'replace', path: '/description', value: 'x' }];
    expect((await patch(flagUrl(uniqueName()), ops)).statusCode).toBe(404);
    expect((await patch(flagUrl(name, 'other'), ops)).statusCode).toBe(404);
    const viewer = await createUser(k.t, 'Viewer');
    const refused = await patch(flagUrl(name), ops, asUser(await login(k.t, viewer.username)));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().name).toBe('NoAccessError');
    expect((await k.a.getFlag('default', name)).json().description).toBeNull();
  });
});
