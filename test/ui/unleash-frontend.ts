import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';

/**
 * Unleash's own web UI, unmodified: the static build that ships in the `unleash-server` package
 * (`frontend/build`), fetched from the npm registry on first use into .tmp/ (git-ignored, never a
 * project dependency; only the package's tarball, none of its dependencies).
 */
export const UNLEASH_UI_VERSION = '8.2.0';
const CACHE = resolve('.tmp/unleash-ui');
const BUILD = join(CACHE, UNLEASH_UI_VERSION, 'frontend', 'build');

/** The build's folder, downloaded and unpacked once (atomically: parallel test files may race). */
export function ensureUnleashUi(): string {
  if (existsSync(join(BUILD, 'index.html'))) return BUILD;
  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(CACHE, 'download-'));
  try {
    // `npm pack` checks the tarball against the registry's integrity hash.
    const out = execFileSync(
      'npm',
      ['pack', `unleash-server@${UNLEASH_UI_VERSION}`, '--silent', '--pack-destination', work],
      { encoding: 'utf8' },
    );
    const tarball = join(work, out.trim().split('\n').pop() as string);
    execFileSync('tar', ['-xzf', tarball, '-C', work, 'package/frontend/build']);
    mkdirSync(join(CACHE, UNLEASH_UI_VERSION), { recursive: true });
    try {
      renameSync(join(work, 'package', 'frontend'), join(CACHE, UNLEASH_UI_VERSION, 'frontend'));
    } catch (error) {
      // Another test file unpacked it first.
      if (!existsSync(join(BUILD, 'index.html'))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return BUILD;
}

/** Paths Unleash's UI sends to its server's API rather than to its static files. */
const API = /^\/(api|auth|logout|health|invite|edge)(\/|\?|$)/;

/**
 * Serves the build as unleash-server does (index.html with its placeholders filled, as its
 * `rewriteHTML` does for an empty base path, for every page path) and forwards every API path to
 * the service at `upstream`, byte for byte, Host header included: to the service the browser's
 * requests are same-origin, as they are behind a reverse proxy.
 */
export async function serveUnleashUi(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const build = ensureUnleashUi();
  const target = new URL(upstream);
  const index = readFileSync(join(build, 'index.html'), 'utf8')
    .replace(/::baseUriPath::/g, '')
    .replace(/::cdnPrefix::/g, '')
    .replace(/::faviconPrefix::/g, '')
    .replace(/::uiFlags::/g, '{}')
    .replace(/::unleashToken::/g, '');
  const app: FastifyInstance = Fastify();
  app.addHook('onRequest', (request, reply, done) => {
    if (!API.test(request.url)) return done();
    reply.hijack();
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        reply.raw.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(reply.raw);
      },
    );
    forwarded.on('error', () => reply.raw.destroy());
    request.raw.pipe(forwarded);
  });
  await app.register(fastifyStatic, { root: join(build, 'static'), prefix: '/static/', index: false });
  app.setNotFoundHandler((_request, reply) => reply.type('text/html').send(index));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}
