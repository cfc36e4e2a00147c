/**
 * The baseline: a bare Fastify 5 app with one GET route returning a small JSON object. Run as a
 * child process the same way as the service (`node --import tsx`), so start-up time, RSS and
 * latency compare like with like. Prints the same kind of ready line as src/main.ts.
 */
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
