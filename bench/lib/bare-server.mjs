// The baseline: a bare Fastify 5 app with one GET route returning a small JSON object, started as a
// child process like the service (with or without the tsx loader), so start-up time, RSS and
// latency compare like with like. Prints the same kind of ready line as src/main.ts.
// The comparison with Unleash (compare.ts) also uses it as the ceiling of each scenario: the same
// answer size, a bodiless 304, and with BARE_DATABASE_URL one durable statement per write.
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';

const started = performance.now();
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ hello: 'world', ok: true }));
// A pre-serialised JSON body of N bytes, kept as bytes and sent as is: what moving a payload of
// that size costs at least (Node writes a long string with several times the CPU of a Buffer).
const blobs = new Map();
const blob = (bytes) => {
  const size = Math.min(Number(bytes) || 0, 512 * 1024 * 1024);
  let body = blobs.get(size);
  if (body === undefined) {
    body = Buffer.from(`{"pad":"${'x'.repeat(Math.max(0, size - 10))}"}`);
    blobs.set(size, body);
  }
  return body;
};
const sendBlob = (request, reply) =>
  reply.type('application/json; charset=utf-8').send(blob(request.params.bytes));
app.get('/bare/blob/:bytes', sendBlob);
// The same after parsing a JSON request body (a playground question).
app.post('/bare/blob/:bytes', sendBlob);
// A revalidation answered without a body, as an SDK's poll with a current ETag gets it.
app.get('/bare/304', async (_request, reply) => reply.code(304).header('ETag', '"bare"').send());
// About N bytes sent as a gzip-encoded JSON answer: stored (uncompressed) deflate blocks, so the
// load generator (which does not decompress) moves N bytes and a client that does can decode it.
const gzipped = new Map();
app.get('/bare/gzip/:bytes', async (request, reply) => {
  const bytes = Math.min(Number(request.params.bytes) || 0, 512 * 1024 * 1024);
  let body = gzipped.get(bytes);
  if (body === undefined) {
    const stored = (raw) => gzipSync(Buffer.alloc(Math.max(0, raw), 'x'), { level: 0 });
    const first = stored(bytes - 18);
    body = stored(bytes - 18 - (first.length - bytes));
    gzipped.set(bytes, body);
  }
  return reply.type('application/json; charset=utf-8').header('Content-Encoding', 'gzip').send(body);
});
// With BARE_DATABASE_URL: the least a durable write with its audit record does, one statement each
// (the row and its event in one transaction), prepared, on a pool of 10 like the service's.
if (process.env.BARE_DATABASE_URL) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: 10 });
  await pool.query(`
    CREATE TABLE IF NOT EXISTS bare_flag (name text PRIMARY KEY, description text NOT NULL);
    CREATE TABLE IF NOT EXISTS bare_event (id bigserial PRIMARY KEY, type text NOT NULL,
      flag text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
    INSERT INTO bare_flag VALUES ('bare-flag', '') ON CONFLICT DO NOTHING;`);
  const update = `WITH changed AS (UPDATE bare_flag SET description = $1 WHERE name = 'bare-flag'
      RETURNING name, description)
    INSERT INTO bare_event (type, flag, data)
      SELECT 'feature-updated', name, jsonb_build_object('description', description) FROM changed`;
  const insert = `WITH created AS (INSERT INTO bare_flag (name, description) VALUES ($1, $2)
      RETURNING name, description)
    INSERT INTO bare_event (type, flag, data)
      SELECT 'feature-created', name, jsonb_build_object('description', description) FROM created`;
  app.put('/bare/update/:bytes', async (request, reply) => {
    await pool.query({ name: 'bare-update', text: update, values: [String(request.body?.description)] });
    return sendBlob(request, reply);
  });
  app.post('/bare/create/:bytes', async (request, reply) => {
    const { name, description } = request.body ?? {};
    try {
      await pool.query({ name: 'bare-insert', text: insert, values: [String(name), String(description)] });
    } catch (error) {
      if (error.code === '23505') return reply.code(409).send({ message: 'exists' });
      throw error;
    }
    return sendBlob(request, reply);
  });
  app.addHook('onClose', () => pool.end());
}
const port = Number(process.env.PORT ?? 0);
await app.listen({ port, host: '127.0.0.1' });
const ms = Math.round(performance.now() - started);
process.stdout.write(`Listening on http://127.0.0.1:${port} (bare fastify, ready in ${ms} ms)\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
