import { describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/harness.js';
import { ensureAdminTokens } from './api-tokens.auth.js';

describe('first-start admin token', () => {
  it('is generated once even when several instances start together on an empty database', async () => {
    const { database, drop } = await openTestDatabase();
    try {
      const results = await Promise.all([1, 2, 3, 4].map(() => ensureAdminTokens(database.db, [])));
      const generated = results.filter((r) => r !== undefined);
      expect(generated).toHaveLength(1);
      expect(generated[0]).toMatch(/^\*:\*\.[0-9a-f]{56}$/);
      const rows = await database.session((run) => run('SELECT count(*)::int AS n FROM api_tokens'));
      expect(rows[0]?.n).toBe(1);
    } finally {
      await database.close();
      await drop();
    }
  });
});
