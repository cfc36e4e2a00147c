import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { actor } from '../../platform/http/auth.js';
import { AppError } from '../../platform/http/errors.js';
import { noStore, routes } from '../../platform/http/routes.js';
import { errorResponses, NoBody } from '../../platform/http/schemas.js';
import { perCallerRateLimit } from '../../platform/http/security-headers.js';
import { LoginThrottled, loginThrottle } from './login.throttle.js';
import { describeCaller, describeMyRoles, describeProfile } from './me.service.js';
import { CreatePatBody, PatListSchema, PatParams, PatSchema } from './pats.schemas.js';
import { createPat, listOwnPats, removePat } from './pats.service.js';
import { login, logout } from './sessions.service.js';
import { hashSecret, SESSION_COOKIE } from './users.auth.js';
import {
  LoginBody,
  MeSchema,
  MyRolesQuery,
  MyRolesSchema,
  PasswordBody,
  ProfileSchema,
  UserSchema,
} from './users.schemas.js';
import { changePassword } from './users.service.js';

const tags = ['Auth'];

/**
 * Signing in and out, the caller's own account (`/api/admin/user`) and personal access tokens.
 * The session cookie is HttpOnly and SameSite=Lax, and Secure when PUBLIC_URL is https.
 */
export const sessionRoutes = (deps: Deps) =>
  routes(async (app) => {
    const cookiePath = deps.config.BASE_URI_PATH || '/';
    const secure = deps.config.PUBLIC_URL?.startsWith('https://') ?? false;
    const clearSession = (reply: FastifyReply) =>
      reply.clearCookie(SESSION_COOKIE, { path: cookiePath, httpOnly: true, sameSite: 'lax', secure });

    // Logins are limited per client address, whatever the account (the app-wide limiter, before
    // the body is read), and their failures per address and account and per account
    // (login.throttle.ts, once the account is known).
    const throttle = loginThrottle(deps.config, deps.now);
    app.post(
      '/auth/simple/login',
      {
        // Checked for the origin like a signed-in write (same-origin.ts): no login CSRF.
        config: {
          permission: 'PUBLIC',
          sameOrigin: true,
          rateLimit: { max: deps.config.LOGIN_ADDRESS_RATE_LIMIT, timeWindow: 60_000 },
        },
        schema: {
          tags,
          operationId: 'login',
          summary: 'Sign in with a username (or email) and password',
          description:
            'Sets the session cookie. 401 for a wrong username or password; 403 when sent from another site; 429 with Retry-After when logins from one address, or failed logins at one account, come too fast.',
          body: LoginBody,
          response: { 200: UserSchema, ...errorResponses(400, 401, 403, 413, 415, 429) },
        },
      },
      async (request, reply) => {
        try {
          const { user, secret, expiresAt } = await login(deps, request.body, {
            address: request.ip,
            throttle,
          });
          reply.setCookie(SESSION_COOKIE, secret, {
            path: cookiePath,
            httpOnly: true,
            sameSite: 'lax',
            secure,
            expires: expiresAt,
          });
          return user;
        } catch (error) {
          if (error instanceof LoginThrottled) reply.header('Retry-After', String(error.retryAfterSeconds));
          throw error;
        }
      },
    );

    // GET /logout ends nothing: a link or an image on any page could otherwise sign people out.
    app.get(
      '/logout',
      {
        config: { permission: 'PUBLIC' },
        schema: {
          tags,
          operationId: 'logout',
          summary: 'Go to the start page (signing out is POST /logout)',
          description:
            'Redirects to the start page and leaves the session as it is: sign out with `POST /logout`.',
          response: { 302: NoBody('Redirected to the start page.') },
        },
      },
      async (_request, reply) => reply.redirect(`${deps.config.BASE_URI_PATH}/`, 302),
    );

    app.post(
      '/logout',
      {
        config: { permission: 'PUBLIC', sameOrigin: true },
        schema: {
          tags,
          operationId: 'logoutPost',
          summary: 'Sign out',
          description:
            'Ends the session of the cookie (if any), clears the cookie and redirects to the start page. 403 when sent from another site.',
          response: { 302: NoBody('Signed out; redirected to the start page.'), ...errorResponses(403) },
        },
      },
      async (request, reply) => {
        await logout(deps, request.cookies[SESSION_COOKIE]);
        clearSession(reply);
        return reply.redirect(`${deps.config.BASE_URI_PATH}/`, 302);
      },
    );

    app.get(
      '/api/admin/user',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getMe',
          summary: 'The caller and its permissions',
          description: 'For an API token, a synthetic user naming the token (never its secret).',
          response: { 200: MeSchema, ...errorResponses(401) },
        },
      },
      async (request, reply) => {
        noStore(reply);
        return describeCaller(deps, actor(request));
      },
    );

    app.get(
      '/api/admin/user/profile',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getProfile',
          summary: 'Your profile',
          description:
            'Your root role, the projects where you hold a role and your groups (API tokens: 400).',
          response: { 200: ProfileSchema, ...errorResponses(400, 401) },
        },
      },
      async (request) => describeProfile(deps, actor(request)),
    );

    app.get(
      '/api/admin/user/roles',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getUserRoles',
          summary: 'Your roles',
          description:
            'The roles you hold directly or through groups: your root role and project roles, or with `projectId` only the project roles you hold there (API tokens: 400).',
          querystring: MyRolesQuery,
          response: { 200: MyRolesSchema, ...errorResponses(400, 401) },
        },
      },
      async (request) => describeMyRoles(deps, actor(request), request.query.projectId),
    );

    app.post(
      '/api/admin/user/change-password',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'changeMyPassword',
          summary: 'Change your own password',
          description: 'The password must pass the password rules; your other sessions end, this one stays.',
          body: PasswordBody,
          response: { 200: NoBody('Password changed.'), ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        const by = actor(request);
        if (by.kind !== 'user') throw new AppError('InvalidOperationError', 'API tokens have no password.');
        const session = request.cookies[SESSION_COOKIE];
        await changePassword(
          deps,
          by.userId,
          request.body.password,
          by,
          session ? hashSecret(session) : undefined,
        );
        return reply.code(200).send(null);
      },
    );

    app.get(
      '/api/admin/user/tokens',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'getPats',
          summary: 'Your personal access tokens',
          description: 'Without secrets. An API token has none.',
          response: { 200: PatListSchema, ...errorResponses(401) },
        },
      },
      (request) => listOwnPats(deps, actor(request)),
    );

    app.post(
      '/api/admin/user/tokens',
      {
        config: {
          permission: 'NONE',
          rateLimit: perCallerRateLimit(deps.config.TOKEN_CREATE_RATE_LIMIT),
        },
        schema: {
          tags,
          operationId: 'createPat',
          summary: 'Create a personal access token',
          description:
            'Acts as you until `expiresAt` (required, in the future). The secret is in this answer only. API tokens cannot create one (403).',
          body: CreatePatBody,
          response: { 201: PatSchema, ...errorResponses(400, 401, 403, 413, 415) },
        },
      },
      async (request, reply) =>
        noStore(reply)
          .code(201)
          .send(await createPat(deps, request.body, actor(request))),
    );

    app.delete(
      '/api/admin/user/tokens/:id',
      {
        config: { permission: 'NONE' },
        schema: {
          tags,
          operationId: 'deletePat',
          summary: 'Delete one of your personal access tokens',
          description: 'It stops working at once. 404 when you have no token with that id.',
          params: PatParams,
          response: { 200: NoBody('Deleted.'), ...errorResponses(400, 401, 403, 404) },
        },
      },
      async (request, reply) => {
        await removePat(deps, request.params.id, actor(request));
        return reply.code(200).send(null);
      },
    );
  });
