import { type AddressInfo, connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { slowUpload } from '../../../test/http.js';
import { type LingerBounds, registerLingeringClose } from './lingering-close.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const KiB = 1024;

/** A listening app with a 1 KiB body limit, one JSON route and one that refuses in `onRequest`. */
async function serve(bounds: LingerBounds) {
  app = Fastify({ bodyLimit: KiB });
  registerLingeringClose(app, bounds);
  app.post('/echo', async (request) => request.body);
  app.post(
    '/refused',
    { onRequest: async (_request, reply) => reply.code(401).send({ refused: true }) },
    () => ({}),
  );
  app.get('/ok', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

const post = (path: string) => `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json`;

describe('lingering close', () => {
  it.each([
    ['Content-Length', false],
    ['chunked', true],
  ])('a slow client that reads only once it has sent its body gets the 413 (%s)', async (_label, chunked) => {
    const served = await serve({ bytes: () => 4096 * KiB, ms: 5000 });
    const answer = await slowUpload(served, post('/echo'), { total: 512 * KiB, chunked });
    expect(answer.error).toBeUndefined();
    expect(answer.sent).toBe(512 * KiB);
    expect(answer.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.body).toMatchObject({ code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
  });

  it.each([
    ['while the body is parsed (413)', '/echo'],
    ['before the body is read (401 from a hook)', '/refused'],
  ])('reads no more than its byte bound after an answer given %s', async (_label, path) => {
    const served = await serve({ bytes: () => 128 * KiB, ms: 5000 });
    const answer = await slowUpload(served, post(path), { total: 4096 * KiB, pauseMs: 1 });
    expect(answer.sent).toBeLessThan(4096 * KiB);
    expect(answer.error).toMatch(/EPIPE|ECONNRESET/);
  });

  it('stops waiting for a slow sender after its time bound', async () => {
    const served = await serve({ bytes: () => 4096 * KiB, ms: 300 });
    // 64 chunks, 20 ms or more apart: over a second of sending, the bound ends it first, and not
    // before it has passed (the answer is immediate: Content-Length says too much).
    const started = performance.now();
    const answer = await slowUpload(served, post('/echo'), { total: 4096 * KiB, pauseMs: 20 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(answer.sent).toBeLessThan(4096 * KiB);
    expect(answer.error).toMatch(/EPIPE|ECONNRESET/);
  });

  it('serves the next request on a kept-alive connection once a refused body has been read', async () => {
    const served = await serve({ bytes: () => 4096 * KiB, ms: 5000 });
    const { port } = served.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const both = new Promise<void>((resolve) =>
      socket.on('data', (chunk) => {
        received += chunk.toString();
        if (received.includes('{"ok":true}')) resolve();
      }),
    );
    socket.write(`${post('/refused')}\r\nContent-Length: ${512 * KiB}\r\n\r\n`);
    socket.write(Buffer.alloc(512 * KiB, 'a'));
    socket.write('GET /ok HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await both;
    socket.destroy();
    expect([...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual(['401', '200']);
  });
});
