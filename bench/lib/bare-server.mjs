// The same bare Fastify baseline as bare-server.ts, as plain JavaScript: started with `node` alone,
// it shows what the tsx loader adds to start-up time and RSS.
import Fastify from 'fastify';

const started = performance.now();
const app = Fastify({ logger: false });
app.get('/bare', async () => ({ hello: 'world', ok: true }));
const port = Number(process.env.PORT ?? 0);
await app.listen({ port, host: '127.0.0.1' });
const ms = Math.round(performance.now() - started);
process.stdout.write(`Listening on http://127.0.0.1:${port} (bare fastify, ready in ${ms} ms)\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
