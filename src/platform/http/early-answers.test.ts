import { type AddressInfo, connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { answerBeforeFastify, type EarlyAnswer } from './early-answers.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A listening app with one route, the early answer in front of it; `GET path` → status and text. */
async function serve(answer: EarlyAnswer) {
  app = Fastify();
  app.get('/route', async () => 'from fastify');
  answerBeforeFastify(app, answer);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: res.status, text: await res.text() };
  };
}

describe('answerBeforeFastify', () => {
  it('answers what the early answer takes and leaves the rest to Fastify', async () => {
    const get = await serve((request, response) => {
      if (request.url !== '/early') return false;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('early');
      return true;
    });
    expect(await get('/early')).toEqual({ status: 200, text: 'early' });
    expect(await get('/route')).toEqual({ status: 200, text: 'from fastify' });
    expect((await get('/nothing')).status).toBe(404);
  });

  it('hands the request to Fastify when the early answer throws before writing', async () => {
    const get = await serve(() => {
      throw new Error('a defect in the early answer');
    });
    expect(await get('/route')).toEqual({ status: 200, text: 'from fastify' });
    expect(await get('/route')).toEqual({ status: 200, text: 'from fastify' });
  });

  it("steps aside once the app closes: a request that arrives then gets Fastify's 503", async () => {
    app = Fastify();
    let started!: () => void;
    const slowStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.get('/slow', async () => {
      started();
      await released;
      return 'slow';
    });
    answerBeforeFastify(app, (request, response) => {
      if (request.url !== '/early') return false;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('early');
      return true;
    });
    let closing!: () => void;
    const preClosed = new Promise<void>((resolve) => {
      closing = resolve;
    });
    // Registered after the early answer's: when it runs, the early answer has stepped aside.
    app.addHook('preClose', (done) => {
      closing();
      done();
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    // One kept-alive connection: a request in flight keeps it open while the app closes.
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString();
    });
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await slowStarted;
    const closed = app.close();
    await preClosed;
    // A listener after the early answer's: called once that one has handed the request on.
    const arrived = new Promise<void>((resolve) =>
      app?.server.on('request', (request) => {
        if (request.url === '/early') resolve();
      }),
    );
    socket.write('GET /early HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await arrived;
    release();
    await ended;
    await closed;
    app = undefined;
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([200, 503]);
    expect(received).toContain('slow');
    expect(received).not.toContain('early');
  });
});
