import { randomBytes } from 'node:crypto';
import { type Db, transaction } from '../../platform/db/index.js';
import { appendEvent } from '../events/index.js';
import { hashPassword } from './password.hash.js';
import { passwordProblems } from './password.policy.js';
import { countUsers, insertUser, lockUserBootstrap, userEventData } from './users.store.js';

/**
 * On a fresh install (no users at all), creates the first Admin user so that a person can sign
 * in. Returns the generated password when none was configured (shown once, like the first token);
 * undefined when users existed or the configured password was used. Instances starting together
 * create it once: the check and the insert run under a transaction-level advisory lock.
 */
export async function ensureAdminUser(
  db: Db,
  options: { username: string; password?: string },
): Promise<{ username: string; generated?: string } | undefined> {
  if (options.password !== undefined) {
    const problems = passwordProblems(options.password);
    if (problems.length > 0) throw new Error(`INIT_ADMIN_PASSWORD: ${problems.join(' ')}`);
  }
  const generated = options.password === undefined ? generatePassword() : undefined;
  const password = options.password ?? (generated as string);
  const hash = await hashPassword(password);
  return transaction(db, async (tx) => {
    await lockUserBootstrap(tx);
    if ((await countUsers(tx)) > 0) return undefined;
    const row = await insertUser(tx, { username: options.username, passwordHash: hash, rootRole: 1 });
    // On the record like every user: by the system, as Unleash records what it does by itself.
    await appendEvent(tx, {
      type: 'user-created',
      createdBy: 'unleash_system_user',
      createdByUserId: -1337,
      data: userEventData(row),
    });
    return { username: options.username, ...(generated !== undefined && { generated }) };
  });
}

/** 20 random characters plus a letter of each case, a digit and a symbol, within the rules. */
function generatePassword(): string {
  for (;;) {
    const candidate = `${randomBytes(15).toString('base64url')}-Aa1`;
    if (passwordProblems(candidate).length === 0) return candidate;
  }
}
