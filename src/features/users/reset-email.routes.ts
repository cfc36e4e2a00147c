import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { routes, sendEmpty } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { requestResetEmail } from './reset-email.service.js';

/** What Unleash offers around mail and SCIM, answered as an instance without either. */
export const resetEmailRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.post(
      '/auth/reset/password-email',
      {
        // Public and reveals whether an email is known (as Unleash): limited like the login.
        config: {
          permission: 'PUBLIC',
          rateLimit: { max: deps.config.LOGIN_RATE_LIMIT, timeWindow: 60_000 },
        },
        schema: {
          tags: ['Auth'],
          operationId: 'sendResetPasswordEmail',
          summary: 'Reset password',
          description:
            'Unleash mails a password link to the user with this email. No mail is sent here (as Unleash with email disabled): 200 for a known email, 404 for an unknown one; nothing is stored. Admins make links with `resetUserPassword`.',
          body: Type.Object(
            { email: Type.String({ minLength: 1, maxLength: 255, description: 'The email address.' }) },
            { additionalProperties: false, description: 'The email of the user.' },
          ),
          response: { 200: NoBody('Accepted.'), ...errorResponses(400, 404, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        await requestResetEmail(deps, request.body.email);
        return sendEmpty(reply, 200);
      },
    );

    app.delete(
      '/api/admin/user-admin/scim-users',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags: ['Users'],
          operationId: 'deleteScimUsers',
          summary: 'Delete all SCIM users',
          description:
            'Deletes the users managed by SCIM. This service has no SCIM provisioning, so there are none: 200, nothing changes and nothing is recorded.',
          response: { 200: NoBody('Done.'), ...errorResponses(401, 403) },
        },
      },
      async (_request, reply) => sendEmpty(reply, 200),
    );
  });
