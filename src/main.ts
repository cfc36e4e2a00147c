import { loadConfig } from './config.js';

/**
 * One program, two compositions: an edge replica (UPSTREAM_URL or EDGE_BOOTSTRAP_FILE, src/edge/,
 * no database) or the service (src/serve.ts). Each is imported only when chosen, so that the
 * bundle (scripts/bundle.mjs splits it at these imports) loads an edge replica without the
 * admin API, the stores and the database drivers: less to parse and keep in memory.
 */
async function main() {
  const started = performance.now();
  const config = loadConfig();
  if (config.UPSTREAM_URL || config.EDGE_BOOTSTRAP_FILE) {
    const { startEdge } = await import('./edge/edge.main.js');
    return startEdge(config, (message) => process.stdout.write(`${message}\n`));
  }
  const { startService } = await import('./serve.js');
  return startService(config, started);
}

main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
