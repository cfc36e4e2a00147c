import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/harness.js';
import { asUser, createUser, login } from '../../../test/people.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('feedback and splash screens', () => {
  it("keeps each person's questionnaires and splash screens, shown by GET /api/admin/user", async () => {
    const person = await createUser(t, 'Viewer');
    const other = await createUser(t, 'Viewer');
    const me = asUser(await login(t, person.username));
    const given = await t.send('POST', '/api/admin/feedback', { feedbackId: 'pnps' }, me);
    expect(given.statusCode).toBe(200);
    expect(given.json()).toMatchObject({ userId: person.id, feedbackId: 'pnps', neverShow: false });
    expect(Date.parse(given.json().given)).toBeGreaterThan(Date.now() - 60_000);
    const declined = await t.send('PUT', '/api/admin/feedback/survey', { neverShow: true, given: null }, me);
    expect(declined.json()).toEqual({
      userId: person.id,
      feedbackId: 'survey',
      neverShow: true,
      given: null,
    });
    const seen = await t.send('POST', '/api/admin/splash/new-ui', undefined, me);
    expect(seen.json()).toEqual({ userId: person.id, splashId: 'new-ui', seen: true });

    const mine = (await t.send('GET', '/api/admin/user', undefined, me)).json();
    expect(mine.feedback.map((f: { feedbackId: string }) => f.feedbackId)).toEqual(['pnps', 'survey']);
    expect(mine.splash).toEqual({ 'new-ui': true });
    const theirs = (
      await t.send('GET', '/api/admin/user', undefined, asUser(await login(t, other.username)))
    ).json();
    expect([theirs.feedback, theirs.splash]).toEqual([[], {}]);
  });

  it('refuses API tokens and bad bodies', async () => {
    const token = await t.send('POST', '/api/admin/feedback', { feedbackId: 'pnps' });
    expect(token.statusCode).toBe(400);
    expect(token.json().name).toBe('ValidationError');
    const person = await createUser(t, 'Viewer');
    const me = asUser(await login(t, person.username));
    expect((await t.send('POST', '/api/admin/feedback', {}, me)).statusCode).toBe(400);
    expect((await t.send('PUT', '/api/admin/feedback/x', { given: 'yesterday' }, me)).statusCode).toBe(400);
  });
});
