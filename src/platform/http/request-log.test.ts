import { type AddressInfo, connect } from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../config.js';
import { RequestLog } from './request-log.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

interface Line {
  msg: string;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

/** A listening app logging at `level` with RequestLog; its log lines, and a wait for one. */
async function serve(level: Config['LOG_LEVEL'], routes: (app: FastifyInstance) => void) {
  const lines: Line[] = [];
  const waiting: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as Line;
      lines.push(line);
      for (const wait of waiting.filter((w) => w.match(line))) wait.resolve(line);
      done();
    },
  });
  app = Fastify({ logger: { level, stream }, logController: new RequestLog(level) });
  routes(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  /** The first line with `msg` (and `url`, when given), once it has been written. */
  const lineWith = (msg: string, url?: string) => {
    const match = (line: Line) => line.msg === msg && (url === undefined || line.req?.url === url);
    return new Promise<Line>((resolve) => {
      const seen = lines.find(match);
      if (seen) resolve(seen);
      else waiting.push({ match, resolve });
    });
  };
  return { lines, lineWith, url: `http://127.0.0.1:${port}`, port };
}

const ok = (app: FastifyInstance) => {
  for (const path of ['/api/admin/projects', '/health', '/ready', '/api/client/features']) {
    app.get(path, async () => ({ ok: true }));
  }
};

describe('request log', () => {
  it('writes one line per request: method, URL, status, response time, request id', async () => {
    const { lines, lineWith, url } = await serve('info', ok);
    expect((await fetch(`${url}/api/admin/projects?x=1`)).status).toBe(200);
    const line = await lineWith('request completed');
    expect(line).toMatchObject({
      req: { method: 'GET', url: '/api/admin/projects?x=1' },
      res: { statusCode: 200 },
    });
    expect(line.responseTime).toBeTypeOf('number');
    expect(line.reqId).toBeTypeOf('string');
    expect(lines.filter((l) => l.reqId === line.reqId)).toHaveLength(1);
  });

  it('leaves out health probes and SDK polls at info, not at debug', async () => {
    for (const level of ['info', 'debug'] as const) {
      const { lines, lineWith, url } = await serve(level, ok);
      for (const path of ['/health', '/ready', '/api/client/features', '/api/admin/projects']) {
        expect((await fetch(url + path)).status).toBe(200);
      }
      // The admin request is the last one: once its line is there, the others' would be too.
      await lineWith('request completed', '/api/admin/projects');
      const urls = lines.filter((l) => l.msg === 'request completed').map((l) => l.req?.url);
      expect(urls, level).toEqual(
        level === 'info'
          ? ['/api/admin/projects']
          : ['/health', '/ready', '/api/client/features', '/api/admin/projects'],
      );
      await app?.close();
    }
  });

  it('writes one line for a request whose client went away before the answer', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { lineWith, port } = await serve('info', (app) =>
      app.get('/hang', async (request) => {
        started();
        await new Promise((resolve) => request.raw.once('close', resolve));
        return {};
      }),
    );
    const socket = connect(port, '127.0.0.1', () =>
      socket.write('GET /hang HTTP/1.1\r\nHost: localhost\r\n\r\n'),
    );
    await running;
    socket.destroy();
    expect(await lineWith('request aborted')).toMatchObject({ req: { method: 'GET', url: '/hang' } });
  });
});
