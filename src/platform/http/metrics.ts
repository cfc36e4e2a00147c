import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * The process figures (CPU, memory, event-loop delay, GC), collected once per process: their
 * collectors (a GC observer, an event-loop delay histogram) run until the process ends, so one
 * set serves every app the process builds (tests build dozens per process).
 */
let processMetrics: Registry | undefined;
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
    // The endpoint is public: no version banner (the Node version) in it.
    processMetrics.removeSingleMetric('nodejs_version_info');
  }
  return processMetrics;
}

/** Counts one answer: method, route pattern, status and its time in seconds. */
export type RecordAnswer = (method: string, route: string, status: number, seconds: number) => void;

/**
 * Prometheus metrics per app: requests and latency per route and status, plus process figures.
 * Returns the recorder, for answers given before Fastify (early-answers.ts).
 */
export function registerMetrics(
  app: FastifyInstance,
  paths: string[] = ['/internal-backstage/prometheus'],
): RecordAnswer {
  const own = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern and status',
    labelNames,
    registers: [own],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency, by route pattern and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [own],
  });
  const registry = Registry.merge([processRegistry(), own]);

  // The counter and histogram children of each (method, route, status), bound once: prom-client
  // would otherwise hash the label object on every response. Few: route patterns, not raw URLs.
  const bound = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  const childrenOf = (method: string, route: string, status: string) => {
    const key = `${method} ${status} ${route}`;
    let children = bound.get(key);
    if (!children) {
      const labels = { method, route, status };
      const counter = requests.labels(labels);
      const histogram = duration.labels(labels);
      children = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      bound.set(key, children);
    }
    return children;
  };

  const record: RecordAnswer = (method, route, status, seconds) => {
    const children = childrenOf(method, route, String(status));
    children.count();
    children.observe(seconds);
  };
  // A callback hook: no promise per response. The route pattern, never the raw URL: label values
  // stay few whatever clients send.
  app.addHook('onResponse', (request, reply, done) => {
    record(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

  for (const path of paths) {
    app.get(path, { config: { permission: 'PUBLIC' }, schema: { hide: true } }, async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  }
  return record;
}
