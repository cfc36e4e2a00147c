import type { AddressInfo } from 'node:net';
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
});
