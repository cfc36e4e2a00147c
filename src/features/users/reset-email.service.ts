import type { Deps } from '../../deps.js';
import { notFound } from '../../platform/http/errors.js';
import { findUserByLogin } from './users.store.js';

/**
 * `POST /auth/reset/password-email`: Unleash mails a reset link to the user with that email. This
 * service sends no mail (Unleash with email disabled): it answers as Unleash does (404 for an
 * unknown email, 200 otherwise) and makes no link, since nobody could receive it; an admin makes
 * one with `POST /api/admin/user-admin/reset-password`. Nothing is stored or recorded.
 */
export async function requestResetEmail(deps: Deps, email: string): Promise<void> {
  const user = await findUserByLogin(deps.database.db, email);
  if (!user || user.email?.toLowerCase() !== email.trim().toLowerCase()) {
    throw notFound(`Could not find ${email}`);
  }
}
