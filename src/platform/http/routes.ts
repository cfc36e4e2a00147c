import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { RoutePermission } from './auth.js';

type Server = RawServerDefault;
type Request = RawRequestDefaultExpression<Server>;
type Reply = RawReplyDefaultExpression<Server>;

/** Route options whose `config.permission` is required: a route without one does not compile. */
export type SecuredOptions<
  Generic extends RouteGenericInterface,
  Schema extends FastifySchema,
> = RouteShorthandOptions<
  Server,
  Request,
  Reply,
  Generic,
  ContextConfigDefault,
  Schema,
  TypeBoxTypeProvider,
  FastifyBaseLogger
> & { config: { permission: RoutePermission } };

/** Fastify's `app.get(path, options, handler)` with the permission made part of the options. */
export type SecuredShorthand = <
  Generic extends RouteGenericInterface = RouteGenericInterface,
  const Schema extends FastifySchema = FastifySchema,
>(
  path: string,
  options: SecuredOptions<Generic, Schema>,
  handler: RouteHandlerMethod<
    Server,
    Request,
    Reply,
    Generic,
    ContextConfigDefault,
    Schema,
    TypeBoxTypeProvider,
    FastifyBaseLogger
  >,
) => unknown;

type TypeBoxApp = FastifyInstance<Server, Request, Reply, FastifyBaseLogger, TypeBoxTypeProvider>;
type RouteMethods = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options' | 'all' | 'route';

/**
 * What a slice sees of the app: Fastify with TypeBox, whose route methods require a permission
 * (ADR 0005). `route`, `all`, `head` and `options` are left out, so there is no way around it.
 */
export type RoutesApp = Omit<TypeBoxApp, RouteMethods> & {
  get: SecuredShorthand;
  post: SecuredShorthand;
  put: SecuredShorthand;
  patch: SecuredShorthand;
  delete: SecuredShorthand;
};

/** A slice's routes as a Fastify plugin; the app it registers on is the narrowed `RoutesApp`. */
export function routes(register: (app: RoutesApp) => Promise<void>): FastifyPluginAsyncTypebox {
  return (app) => register(app);
}

/**
 * Marks an answer that shows a secret (a new token's secret, a one-time link) or the caller's
 * credentials: `Cache-Control: no-store`, so no browser or proxy cache keeps a copy of it. Every
 * such route calls this; returns the reply, for chaining.
 */
export const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');

/** Answers with the status and no body at all, as Unleash does for some operations. */
export const sendEmpty = (reply: FastifyReply, code: number) => reply.code(code).send();

/**
 * Sends JSON that the route's own serialiser already produced (`reply.serialize`), e.g. kept in
 * the read cache, so it is not serialised again. What is kept for many requests is best kept as
 * bytes (`Buffer.from(text)`): a string is measured and encoded again for every answer.
 */
export const sendSerialized = (reply: FastifyReply, json: string | Buffer) =>
  reply.type('application/json; charset=utf-8').send(json);

/**
 * Calls `send` with a result made at once, or once it is ready: a route handler (not `async`)
 * returns this, so an answer made from memory costs no promise (SDK routes) and Fastify follows
 * the promise otherwise.
 */
export function whenReady<T>(result: T | Promise<T>, send: (ready: T) => void): undefined | Promise<void> {
  if (result instanceof Promise) {
    return result.then((ready) => {
      send(ready);
    });
  }
  send(result);
  return undefined;
}
