// The baseline: a bare Fastify 5 app with one GET route returning a small JSON object, started as a
// child process like the service (with or without the tsx loader), so start-up time, RSS and
// latency compare like with like. Prints the same kind of ready line as src/main.ts.
import Fastify from 'fastify';

const started = performance.now();
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ hello: 'world', ok: true }));
// A pre-serialised JSON body of N bytes, sent as is: what moving a payload of that size costs.
const blobs = new Map();
app.get('/bare/blob/:bytes', async (request, reply) => {
  const bytes = Math.min(Number(request.params.bytes) || 0, 512 * 1024 * 1024);
  let body = blobs.get(bytes);
  if (body === undefined) {
    body = `{"pad":"${'x'.repeat(Math.max(0, bytes - 10))}"}`;
    blobs.set(bytes, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
});
// N bytes sent as a gzip-encoded JSON answer (the load generator does not decompress): what moving
// a compressed answer of that size costs.
const gzipped = new Map();
app.get('/bare/gzip/:bytes', async (request, reply) => {
  const bytes = Math.min(Number(request.params.bytes) || 0, 512 * 1024 * 1024);
  let body = gzipped.get(bytes);
  if (body === undefined) {
    body = Buffer.alloc(bytes, 'gzip bytes ');
    gzipped.set(bytes, body);
  }
  return reply.type('application/json; charset=utf-8').header('Content-Encoding', 'gzip').send(body);
});
const port = Number(process.env.PORT ?? 0);
await app.listen({ port, host: '127.0.0.1' });
const ms = Math.round(performance.now() - started);
process.stdout.write(`Listening on http://127.0.0.1:${port} (bare fastify, ready in ${ms} ms)\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
