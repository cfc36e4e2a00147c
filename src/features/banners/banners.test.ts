import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

/** Instance banners through the API: Admins manage them, everyone signed in reads them, on the record. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const eventsOfBanners = () =>
  t.database.session((run) =>
    run(`SELECT type, data, pre_data AS "preData" FROM events WHERE type LIKE 'banner-%' ORDER BY id`, []),
  );

describe('banners', () => {
  it('creates, edits, hides, shows and deletes a banner, each recorded; others read it', async () => {
    const created = await t.send('POST', '/api/admin/banners', {
      message: 'Maintenance **tonight**',
      variant: 'warning',
      link: 'dialog',
      linkText: 'Details',
      dialogTitle: 'Maintenance',
      dialog: 'From 22:00 to 23:00.',
    });
    expect(created.statusCode, created.body).toBe(201);
    const banner = created.json();
    expect(banner).toMatchObject({
      enabled: true,
      variant: 'warning',
      sticky: false,
      icon: null,
      link: 'dialog',
    });

    const viewer = asUser(await login(t, (await createUser(t, 'Viewer')).username));
    const seen = (await t.send('GET', '/api/admin/banners', undefined, viewer)).json();
    expect(seen.banners).toContainEqual(banner);
    expect((await t.send('POST', `/api/admin/banners/${banner.id}/off`, undefined, viewer)).statusCode).toBe(
      403,
    );

    const off = await t.send('POST', `/api/admin/banners/${banner.id}/off`);
    expect(off.json().enabled).toBe(false);
    const edited = await t.send('PUT', `/api/admin/banners/${banner.id}`, { message: 'Done', enabled: true });
    expect(edited.json()).toMatchObject({ message: 'Done', enabled: true, variant: 'info', link: null });
    expect((await t.send('DELETE', `/api/admin/banners/${banner.id}`)).statusCode).toBe(200);
    expect((await t.send('DELETE', `/api/admin/banners/${banner.id}`)).statusCode).toBe(404);

    const events = await eventsOfBanners();
    expect(events.map((e) => e.type)).toEqual([
      'banner-created',
      'banner-updated',
      'banner-updated',
      'banner-deleted',
    ]);
    expect(events[1]).toMatchObject({ data: { enabled: false }, preData: { enabled: true } });
    expect(events[3]).toMatchObject({ preData: { message: 'Done' } });
  });

  it('refuses a link that could run script, and other bad input, storing nothing', async () => {
    const bad = [
      { message: 'x', link: 'javascript:alert(1)' },
      { message: 'x', link: '//evil.example' },
      { message: 'x', link: '/\\evil.example' },
      { message: 'x', variant: 'loud' },
      { message: '' },
      { link: 'https://example.com' },
    ];
    for (const body of bad) {
      const res = await t.send('POST', '/api/admin/banners', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().name).toBe('ValidationError');
    }
    expect((await t.send('PUT', '/api/admin/banners/999999', { message: 'x' })).statusCode).toBe(404);
    expect((await t.send('GET', '/api/admin/banners')).json().banners).toEqual([]);
  });
});
