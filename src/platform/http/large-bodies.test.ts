import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_BODY_CHARS, registerLargeBodies } from './large-bodies.js';

// Multi-byte characters: a body's length in characters is not its length in bytes.
const text = (chars: number) => JSON.stringify({ note: 'é€😀'.repeat(Math.ceil(chars / 4)).slice(0, chars) });

describe('large string answers', () => {
  const app = Fastify({ logger: false });
  beforeAll(async () => {
    registerLargeBodies(app);
    app.get('/text/:chars', async (request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send(text(Number((request.params as { chars: string }).chars))),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it.each([
    ['small', 1000],
    ['just below the limit', LARGE_BODY_CHARS - 20],
    ['large', LARGE_BODY_CHARS * 3],
  ])('arrive whole with their length in bytes (%s)', async (_label, chars) => {
    const { port } = app.server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/text/${chars}`);
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBe(body.length);
    expect(body.toString('utf8')).toBe(text(chars));
  });
});
