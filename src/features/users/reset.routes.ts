import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { resetPasswordLink, setPasswordWithLink, validateResetLink } from './reset.service.js';
import { UserSchema } from './users.schemas.js';

const tags = ['Users'];
const Token = Type.String({ minLength: 1, maxLength: 200, description: 'The secret of a password link.' });

/** Password links: an admin makes one; the person opens it and sets a password (no credential). */
export const resetRoutes = (deps: Deps) =>
  routes(async (app) => {
    // Public and guessable-at-best: limited per client address like the login.
    const rateLimit = { max: deps.config.LOGIN_RATE_LIMIT, timeWindow: 60_000 };

    app.post(
      '/api/admin/user-admin/reset-password',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'resetUserPassword',
          summary: 'Make a link to set a new password',
          description:
            'For the user with that email or username: a one-time link, valid 7 days, shown only in this answer (no mail is sent). 404 for an unknown user.',
          body: Type.Object(
            {
              id: Type.String({
                minLength: 1,
                maxLength: 255,
                description: 'Email or username of the user.',
              }),
            },
            { additionalProperties: false, description: 'Whose password to reset.' },
          ),
          response: {
            200: Type.Object(
              { resetPasswordUrl: Type.String({ description: 'The one-time link.' }) },
              { description: 'The link to hand to the user.' },
            ),
            ...errorResponses(400, 401, 403, 404, 413, 415),
          },
        },
      },
      async (request, reply) => {
        noStore(reply);
        return resetPasswordLink(deps, request.body.id, actor(request));
      },
    );

    app.get(
      '/auth/reset/validate',
      {
        config: { permission: 'PUBLIC', rateLimit },
        schema: {
          tags,
          operationId: 'validateToken',
          summary: 'Check a password link',
          description: 'The user the link is for; 401 when it is unknown, used or expired.',
          querystring: Type.Object({ token: Token }),
          response: { 200: UserSchema, ...errorResponses(400, 401, 429) },
        },
      },
      (request) => validateResetLink(deps, request.query.token),
    );

    app.post(
      '/auth/reset/password',
      {
        config: { permission: 'PUBLIC', rateLimit },
        schema: {
          tags,
          operationId: 'changePassword',
          summary: 'Set a password with a link',
          description:
            'Sets the password (which must pass the password rules) and uses the link up; the user is signed out everywhere. 401 for an unknown, used or expired link.',
          body: Type.Object(
            {
              token: Token,
              password: Type.String({ maxLength: 1000, description: 'The new password.' }),
            },
            { additionalProperties: false, description: 'The link and the new password.' },
          ),
          response: { 200: NoBody('Password set.'), ...errorResponses(400, 401, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        await setPasswordWithLink(deps, request.body.token, request.body.password);
        return reply.code(200).send(null);
      },
    );
  });
