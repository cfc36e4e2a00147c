import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from './harness.js';

/** An answer as the client read it off the wire. */
export interface RawAnswer {
  status: number;
  /** Header names and values as sent, in order, without Date (the clock's). */
  headers: [string, string][];
  /** The body as bytes (latin1), so a gzip body compares exactly. */
  body: string;
}

/**
 * One HTTP request to 127.0.0.1:`port` with Node's client, read raw: for comparing the answers
 * given before Fastify (src/platform/http/early-answers.ts) with Fastify's, header for header.
 */
export const rawRequest = (
  port: number,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    // Host, port and path apart: a URL would drop an empty query (`features?`).
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i] as string;
          if (name.toLowerCase() !== 'date') pairs.push([name, res.rawHeaders[i + 1] as string]);
        }
        resolve({ status: res.statusCode ?? 0, headers: pairs, body });
      });
    });
    req.on('error', reject);
    req.end();
  });

/** The value of a header of a raw answer. */
export const rawHeader = (answer: RawAnswer, name: string) =>
  answer.headers.find(([n]) => n.toLowerCase() === name)?.[1];

/**
 * A test app listening on a port of 127.0.0.1, with the `METHOD url` of every request Fastify
 * answered in `reached` (what an early answer took never appears there).
 */
export async function listeningApp(): Promise<{ t: TestApp; port: number; reached: string[] }> {
  const reached: string[] = [];
  const t = await startTestApp({
    beforeReady: (app) =>
      app.addHook('onResponse', (request, _reply, done) => {
        reached.push(`${request.method} ${request.url}`);
        done();
      }),
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, port: (t.app.server.address() as AddressInfo).port, reached };
}
