import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, openTestDatabase } from '../../../test/harness.js';
import { buildApp } from '../../app.js';
import { testConfig } from '../../config.js';
import { ensureAdminTokens } from '../access/index.js';
import { ensureAdminUser } from './index.js';

describe('the first Admin user', () => {
  it('is created once on a fresh install, with a generated password that signs in, on the record', async () => {
    const { database, drop } = await openTestDatabase();
    try {
      const first = await ensureAdminUser(database.db, { username: 'admin' });
      expect(first?.username).toBe('admin');
      const password = first?.generated as string;
      expect(await ensureAdminUser(database.db, { username: 'admin' })).toBeUndefined();

      await ensureAdminTokens(database.db, [ADMIN_TOKEN]);
      const app = await buildApp({ database, config: testConfig(), now: () => new Date() });
      try {
        const login = await app.inject({
          method: 'POST',
          url: '/auth/simple/login',
          payload: { username: 'admin', password },
        });
        expect(login.statusCode).toBe(200);
        expect(login.json().rootRole).toBe(1);
        const events = await database.session((run) =>
          run("SELECT created_by, data FROM events WHERE type = 'user-created'"),
        );
        expect(events).toEqual([
          {
            created_by: 'unleash_system_user',
            data: expect.objectContaining({ username: 'admin', rootRole: 1 }),
          },
        ]);
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
      await drop();
    }
  });

  it('refuses a configured password that breaks the rules', async () => {
    const { database, drop } = await openTestDatabase();
    try {
      await expect(ensureAdminUser(database.db, { username: 'admin', password: 'short' })).rejects.toThrow(
        /INIT_ADMIN_PASSWORD/,
      );
    } finally {
      await database.close();
      await drop();
    }
  });
});
