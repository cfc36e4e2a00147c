import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../../../test/api.js';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

let t: TestApp;
let a: ReturnType<typeof api>;
beforeAll(async () => {
  t = await startTestApp();
  a = api(t);
});
afterAll(() => t.close());

const webhook = (parameters: Record<string, unknown> = {}) => ({
  provider: 'webhook',
  enabled: true,
  description: 'to the audit system',
  parameters: {
    url: 'https://hooks.example.com/unleash',
    authorization: 'Bearer s3cret',
    customHeaders: '{"X-Api-Key": "k3y"}',
    contentType: 'application/json',
    ...parameters,
  },
  events: ['feature-created', 'feature-archived'],
  projects: ['default'],
  environments: [],
});

describe('addons', () => {
  it('lists the webhook and Slack providers with their parameters and events', async () => {
    const res = await t.send('GET', '/api/admin/addons');
    expect(res.statusCode).toBe(200);
    const providers = res.json().providers as {
      name: string;
      parameters: { name: string; required: boolean; sensitive: boolean }[];
      events: string[];
    }[];
    expect(providers.map((p) => p.name)).toEqual(['webhook', 'slack']);
    const [hook, slack] = providers;
    expect(hook?.parameters).toContainEqual(
      expect.objectContaining({ name: 'url', required: true, sensitive: true }),
    );
    expect(hook?.parameters.map((p) => p.name)).toEqual([
      'url',
      'contentType',
      'authorization',
      'bodyTemplate',
      'customHeaders',
    ]);
    expect(hook?.events).toContain('feature-environment-enabled');
    expect(slack?.parameters.map((p) => p.name)).toEqual(['url', 'username', 'emojiIcon', 'defaultChannel']);
    expect(slack?.events).toContain('feature-created');
  });

  it('creates, reads, updates and deletes with events; sensitive parameters are masked', async () => {
    const created = await t.send('POST', '/api/admin/addons', webhook());
    expect(created.statusCode).toBe(200);
    const addon = created.json();
    expect(addon).toEqual({
      id: expect.any(Number),
      provider: 'webhook',
      description: 'to the audit system',
      enabled: true,
      parameters: {
        url: '*****',
        authorization: '*****',
        customHeaders: '*****',
        contentType: 'application/json',
      },
      events: ['feature-created', 'feature-archived'],
      projects: ['default'],
      environments: [],
    });
    const event = await a.lastEvent('addon-config-created');
    expect(event).toMatchObject({ created_by: 'admin', data: { id: addon.id, provider: 'webhook' } });
    expect(JSON.stringify(event?.data)).not.toContain('s3cret');

    // Stored as given: deliveries need the real values.
    const [stored] = await t.database.session((run) =>
      run('SELECT parameters FROM addons WHERE id = $1', [addon.id]),
    );
    expect(stored?.parameters).toMatchObject({
      url: 'https://hooks.example.com/unleash',
      authorization: 'Bearer s3cret',
    });

    const one = await t.send('GET', `/api/admin/addons/${addon.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(addon);
    expect((await t.send('GET', '/api/admin/addons')).json().addons).toContainEqual(addon);

    // The UI sends back what it was shown: masked values keep the stored ones.
    const updated = await t.send('PUT', `/api/admin/addons/${addon.id}`, {
      provider: 'webhook',
      enabled: false,
      parameters: { ...addon.parameters, contentType: 'text/plain' },
      events: ['feature-created'],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      enabled: false,
      description: 'to the audit system',
      projects: ['default'],
      parameters: { url: '*****', contentType: 'text/plain' },
      events: ['feature-created'],
    });
    const [after] = await t.database.session((run) =>
      run('SELECT parameters FROM addons WHERE id = $1', [addon.id]),
    );
    expect(after?.parameters).toMatchObject({
      url: 'https://hooks.example.com/unleash',
      authorization: 'Bearer s3cret',
    });
    expect(await a.lastEvent('addon-config-updated')).toMatchObject({
      data: { id: addon.id, enabled: false },
      pre_data: { id: addon.id, enabled: true },
    });

    const deleted = await t.send('DELETE', `/api/admin/addons/${addon.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.body).toBe('');
    expect(await a.lastEvent('addon-config-deleted')).toMatchObject({ pre_data: { id: addon.id } });
    expect((await t.send('GET', `/api/admin/addons/${addon.id}`)).statusCode).toBe(404);
    expect((await t.send('DELETE', `/api/admin/addons/${addon.id}`)).statusCode).toBe(404);
  });

  it('answers 404 for unknown or malformed ids', async () => {
    for (const id of ['999999', 'abc', '0']) {
      const res = await t.send('GET', `/api/admin/addons/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({
        name: 'NotFoundError',
        message: `Could not find the addon with ID "${id}".`,
      });
      expect((await t.send('PUT', `/api/admin/addons/${id}`, webhook())).statusCode).toBe(404);
      expect((await t.send('GET', `/api/admin/addons/${id}/events`)).statusCode).toBe(404);
    }
  });

  it('refuses invalid addons with a 400 naming the field, storing nothing', async () => {
    const before = await a.count('addons');
    const cases: [unknown, string][] = [
      [{ ...webhook(), provider: 'pagerduty' }, '/body/provider'],
      [webhook({ url: undefined }), '/body/parameters/url'],
      [webhook({ url: '  ' }), '/body/parameters/url'],
      [webhook({ url: 'not a url' }), '/body/parameters/url'],
      [webhook({ url: 'ftp://example.com/x' }), '/body/parameters/url'],
      [webhook({ url: 42 }), '/body/parameters/url'],
      [webhook({ customHeaders: '{"X-Key": 1}' }), '/body/parameters/customHeaders'],
      [webhook({ customHeaders: 'not json' }), '/body/parameters/customHeaders'],
      [webhook({ bodyTemplate: '{{#event}} unclosed' }), '/body/parameters/bodyTemplate'],
      [webhook({ url: '*****' }), '/body/parameters/url'],
      [
        { provider: 'slack', enabled: true, parameters: { url: 'https://hooks.slack.com/x' }, events: [] },
        '/body/parameters/defaultChannel',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await t.send('POST', '/api/admin/addons', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().name).toBe('ValidationError');
      expect(res.json().details?.[0]?.path, JSON.stringify(body)).toBe(path);
    }
    // Text PostgreSQL cannot store is refused too, never a 500.
    for (const body of [
      { ...webhook(), description: 'a\u0000b' },
      webhook({ contentType: 'text/\u0000plain' }),
      webhook({ 'x\u0000y': 'z' }),
      { ...webhook(), events: ['feature-\u0000created'] },
    ]) {
      const res = await t.send('POST', '/api/admin/addons', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    const noEvents = await t.send('POST', '/api/admin/addons', {
      provider: 'webhook',
      enabled: true,
      parameters: {},
    });
    expect(noEvents.statusCode).toBe(400);
    expect(await a.count('addons')).toBe(before);
  });

  it('needs CREATE/UPDATE/DELETE_ADDON: an Editor may, a Viewer may only read', async () => {
    const editor = asUser(await login(t, (await createUser(t, 'Editor')).username));
    const viewer = asUser(await login(t, (await createUser(t, 'Viewer')).username));
    const slack = {
      provider: 'slack',
      enabled: true,
      parameters: { url: 'https://hooks.slack.com/services/T/B/X', defaultChannel: 'releases' },
      events: ['feature-created'],
    };
    expect((await t.send('POST', '/api/admin/addons', slack, viewer)).statusCode).toBe(403);
    const created = await t.send('POST', '/api/admin/addons', slack, editor);
    expect(created.statusCode).toBe(200);
    const id = created.json().id;
    expect((await t.send('GET', `/api/admin/addons/${id}`, undefined, viewer)).statusCode).toBe(200);
    expect((await t.send('PUT', `/api/admin/addons/${id}`, slack, viewer)).statusCode).toBe(403);
    expect((await t.send('DELETE', `/api/admin/addons/${id}`, undefined, viewer)).statusCode).toBe(403);
    expect((await t.send('PUT', `/api/admin/addons/${id}`, slack, editor)).statusCode).toBe(200);
    expect((await t.send('DELETE', `/api/admin/addons/${id}`, undefined, editor)).statusCode).toBe(200);
    expect(
      (await t.send('GET', '/api/admin/addons', undefined, { authorization: undefined })).statusCode,
    ).toBe(401);
  });

  it('refuses webhooks to internal addresses in any spelling, naming the setting, storing nothing', async () => {
    const editor = asUser(await login(t, (await createUser(t, 'Editor')).username));
    const before = await a.count('addons');
    for (const url of [
      'http://0x7f000001:5432/',
      'http://2130706433/',
      'http://127.1/',
      'http://[::1]:4242/',
      'http://[::ffff:127.0.0.1]/',
      'http://localhost/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'https://192.168.1.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0:22/',
      'http://[fd00::1]/',
    ]) {
      for (const caller of [editor, {}]) {
        const res = await t.send('POST', '/api/admin/addons', webhook({ url }), caller);
        expect(res.statusCode, url).toBe(400);
        expect(res.json()).toMatchObject({ id: expect.any(String), name: 'ValidationError' });
        expect(res.json().details?.[0]?.path).toBe('/body/parameters/url');
        expect(res.json().message).toContain('OUTGOING_ALLOWED_HOSTS');
      }
    }
    const slack = { provider: 'slack', enabled: true, events: ['feature-created'] };
    const toMetadata = { ...slack, parameters: { url: 'http://169.254.169.254/', defaultChannel: 'x' } };
    expect((await t.send('POST', '/api/admin/addons', toMetadata, editor)).statusCode).toBe(400);
    // An update cannot point an addon there either, nor keep such a URL.
    const created = await t.send('POST', '/api/admin/addons', webhook(), editor);
    expect(created.statusCode).toBe(200);
    const id = created.json().id;
    const moved = await t.send(
      'PUT',
      `/api/admin/addons/${id}`,
      webhook({ url: 'http://127.1:8080/' }),
      editor,
    );
    expect(moved.statusCode).toBe(400);
    expect(
      (await t.send('PUT', `/api/admin/addons/${id}`, webhook({ url: '*****' }), editor)).statusCode,
    ).toBe(200);
    expect(await a.count('addons')).toBe(before + 1);
    await t.send('DELETE', `/api/admin/addons/${id}`);
  });

  it('lets an Editor subscribe only to flag events; an Admin to any', async () => {
    const editor = asUser(await login(t, (await createUser(t, 'Editor')).username));
    for (const type of ['user-created', 'api-token-created', 'pat-created', 'setting-updated']) {
      const body = { ...webhook(), events: ['feature-created', type] };
      const res = await t.send('POST', '/api/admin/addons', body, editor);
      expect(res.statusCode, type).toBe(400);
      expect(res.json().details?.[0]?.path).toBe('/body/events');
    }
    const admin = await t.send('POST', '/api/admin/addons', { ...webhook(), events: ['user-created'] });
    expect(admin.statusCode).toBe(200);
    const id = admin.json().id;
    // Nor may an Editor keep such an event on an Admin's addon.
    const kept = await t.send(
      'PUT',
      `/api/admin/addons/${id}`,
      { ...webhook({ url: '*****' }), events: ['user-created'] },
      editor,
    );
    expect(kept.statusCode).toBe(400);
    await t.send('DELETE', `/api/admin/addons/${id}`);
  });

  it('shows the delivery log only to those who may update the addon', async () => {
    const editor = asUser(await login(t, (await createUser(t, 'Editor')).username));
    const viewer = asUser(await login(t, (await createUser(t, 'Viewer')).username));
    const id = (await t.send('POST', '/api/admin/addons', webhook())).json().id;
    const denied = await t.send('GET', `/api/admin/addons/${id}/events`, undefined, viewer);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ id: expect.any(String), name: 'NoAccessError' });
    expect((await t.send('GET', `/api/admin/addons/${id}/events`, undefined, editor)).statusCode).toBe(200);
    await t.send('DELETE', `/api/admin/addons/${id}`);
  });
});
