import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { UserSchema } from '../users/index.js';
import {
  CreateInvitedUserBody,
  CreatePublicSignupTokenBody,
  PublicSignupTokenSchema,
  PublicSignupTokensSchema,
  TokenParams,
  UpdatePublicSignupTokenBody,
} from './invites.schemas.js';
import {
  checkToken,
  createPublicSignupToken,
  getPublicSignupToken,
  listPublicSignupTokens,
  signUp,
  updatePublicSignupToken,
} from './invites.service.js';

const tags = ['Public signup tokens'];

/**
 * Invite links: admins manage tokens (`/api/admin/invite-link/tokens`); anyone holding a valid
 * link checks it and creates their own Viewer account (`/invite/:token/...`). Decisions: see
 * invites.service.ts.
 */
export const inviteRoutes = (deps: Deps) =>
  routes(async (app) => {
    app.get(
      '/api/admin/invite-link/tokens',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getAllPublicSignupTokens',
          summary: 'Get public signup tokens',
          description:
            'Every public signup token, newest first, with the users who signed up with it, its secret and its invite link (a token made before the secret was kept shows a display prefix and `url` null). Not cached (`Cache-Control: no-store`).',
          response: { 200: PublicSignupTokensSchema, ...errorResponses(401, 403) },
        },
      },
      async (_request, reply) => noStore(reply).send(await listPublicSignupTokens(deps)),
    );

    app.post(
      '/api/admin/invite-link/tokens',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'createPublicSignupToken',
          summary: 'Create a public signup token',
          description:
            'Creates an invite link for the Viewer role and records `public-signup-token-created`. `expiresAt` must be in the future and is capped at one month from now. The answer holds the secret and the link (not cached).',
          body: CreatePublicSignupTokenBody,
          response: { 201: PublicSignupTokenSchema, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        const token = await createPublicSignupToken(deps, request.body, actor(request));
        return noStore(reply).code(201).header('Location', `tokens/${token.secret}`).send(token);
      },
    );

    app.get(
      '/api/admin/invite-link/tokens/:token',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'getPublicSignupToken',
          summary: 'Get a public signup token',
          description:
            'The token whose full secret is in the path, with its secret and invite link (not cached); 404 when there is none.',
          params: TokenParams,
          response: { 200: PublicSignupTokenSchema, ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => noStore(reply).send(await getPublicSignupToken(deps, request.params.token)),
    );

    app.put(
      '/api/admin/invite-link/tokens/:token',
      {
        config: { permission: 'ADMIN' },
        schema: {
          tags,
          operationId: 'updatePublicSignupToken',
          summary: 'Update a public signup token',
          description:
            'Sets the expiry (not capped) and/or enables or disables the token whose full secret is in the path, and records `public-signup-token-updated`; the answer holds the secret and the link (not cached). At least one field; 404 for an unknown token.',
          params: TokenParams,
          body: UpdatePublicSignupTokenBody,
          response: { 200: PublicSignupTokenSchema, ...errorResponses(400, 401, 403, 404, 413, 415) },
        },
      },
      async (request, reply) =>
        noStore(reply).send(
          await updatePublicSignupToken(deps, request.params.token, request.body, actor(request)),
        ),
    );

    app.get(
      '/invite/:token/validate',
      {
        config: { permission: 'PUBLIC' },
        schema: {
          tags,
          operationId: 'validatePublicSignupToken',
          summary: 'Validate a signup token',
          description:
            '200 when the token exists, is enabled and has not expired; 400 otherwise (the same answer for unknown, disabled and expired tokens).',
          params: TokenParams,
          response: { 200: NoBody('The token can be used to sign up.'), ...errorResponses(400) },
        },
      },
      async (request, reply) => {
        await checkToken(deps, request.params.token);
        return reply.code(200).send(null);
      },
    );

    app.post(
      '/invite/:token/signup',
      {
        config: {
          permission: 'PUBLIC',
          // Per client address, as password logins: account creation is open to anyone with a link.
          rateLimit: { max: deps.config.LOGIN_RATE_LIMIT, timeWindow: 60_000 },
        },
        schema: {
          tags,
          operationId: 'addPublicSignupTokenUser',
          summary: 'Sign up with a signup token',
          description:
            "Creates a user with the token's role (Viewer), records `user-created` and `public-signup-token-user-added`, and answers 201 with the user. 400 for an invalid token (unknown, disabled or expired) or a password that breaks the password rules; 409 when the username or email is taken; 429 when signups from one address come too fast.",
          params: TokenParams,
          body: CreateInvitedUserBody,
          response: { 201: UserSchema, ...errorResponses(400, 409, 413, 415, 429) },
        },
      },
      async (request, reply) => reply.code(201).send(await signUp(deps, request.params.token, request.body)),
    );
  });
