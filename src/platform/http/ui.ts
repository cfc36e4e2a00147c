import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

/**
 * `dist/ui` of the package, where `npm run build:ui` writes the web UI: found upwards from this
 * module (the folder holding package.json), so it works from `src/` (tsx) and from the bundle.
 */
function uiDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'ui');
}

/** Paths that belong to the API and tooling: never answered with the UI, so their 404s stay JSON. */
const NOT_UI = ['/api', '/auth', '/health', '/ready', '/docs', '/internal-backstage', '/metrics', '/logout'];

const YEAR_MS = 365 * 24 * 3600 * 1000;

const hidden = { config: { permission: 'PUBLIC' as const }, schema: { hide: true } };

function isUiPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return !NOT_UI.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

const wantsHtml = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/html');

/**
 * The web admin UI (ADR 0012): `dist/ui` as built by Vite, served by the service itself. Hashed
 * files under `/assets/` are cached for a year; `index.html` is revalidated on every load, so a
 * new build is picked up at once. Client routes (`/projects/default`) fall back to `index.html` for
 * browsers (Accept: text/html); everything else unmatched, and every API path, gets the JSON 404.
 * The routes are hidden from the OpenAPI document: they are not part of the API.
 */
export async function registerUi(app: FastifyInstance, options: { basePath: string; dir?: string }) {
  const dir = options.dir ?? uiDir();
  const indexFile = join(dir, 'index.html');
  // The build uses relative asset URLs; a <base> makes them (and the UI's API calls) resolve
  // against the service's base path from any client route, however deep.
  const baseTag = `<base href="${escapeAttribute(`${options.basePath}/`)}">`;
  let cached: { mtimeMs: number; html: string } | undefined;
  const indexHtml = (): string | undefined => {
    if (!existsSync(indexFile)) return undefined;
    const { mtimeMs } = statSync(indexFile);
    if (cached?.mtimeMs !== mtimeMs) {
      cached = { mtimeMs, html: readFileSync(indexFile, 'utf8').replace('<head>', `<head>${baseTag}`) };
    }
    return cached.html;
  };

  const sendIndex = (reply: FastifyReply) => {
    const html = indexHtml();
    reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8');
    if (html !== undefined) return reply.send(html);
    return reply.code(200).send(NOT_BUILT);
  };

  await app.register(fastifyStatic, { root: dir, serve: false });

  app.get('/', hidden, async (_request, reply) => sendIndex(reply));

  app.get('/assets/*', hidden, async (request, reply) => {
    const file = (request.params as { '*': string })['*'];
    return reply.sendFile(`assets/${file}`, dir, { maxAge: YEAR_MS, immutable: true });
  });

  // Static routes win over this wildcard: it sees only paths no other route answers. The router
  // also falls back to it when a path segment is longer than its maxParamLength, which without
  // the wildcard is a 400 (FST_ERR_MAX_PARAM_LENGTH): keep that answer for API paths.
  const maxParamLength = app.initialConfig.routerOptions?.maxParamLength ?? 100;
  app.get('/*', hidden, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (!isUiPath(path) && path.split('/').some((segment) => segment.length > maxParamLength)) {
      throw new AppError('ValidationError', `'${path}' is exceeding the max param length`);
    }
    if (!isUiPath(path) || !wantsHtml(request)) return reply.callNotFound();
    return sendIndex(reply);
  });
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Flagship</title></head>
<body><main><h1>The web UI is not built</h1>
<p>Run <code>npm run build:ui</code> (or start the service with <code>npm start</code>, which builds it), then reload.
The API works without it: see <a href="docs">the API documentation</a>.</p></main></body></html>`;

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
