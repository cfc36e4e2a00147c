import { spawn } from 'node:child_process';
import { type Child, freePort, ROOT, startChild } from './service.js';

/**
 * Starts the bare Fastify baseline (bare-server.mjs) as a child process: with the tsx loader like
 * `npm start`, or (plain) under node alone. `env` (BARE_DATABASE_URL) adds its write routes;
 * `nodeArgs` are node flags (the memory bench gives the service's own, so both run alike).
 */
export async function startBare(
  plain = false,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: [...nodeArgs, ...(plain ? [] : ['--import', 'tsx']), 'bench/lib/bare-server.mjs'],
    env: { ...env, PORT: String(port) },
    readyPattern: /^Listening on /,
    timeoutMs: 30_000,
    port,
  });
}

/** Milliseconds for `node -e ""` from spawn to exit: what Node itself costs before any code. */
export function nodeBareStartMs(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['-e', ''], { cwd: ROOT, stdio: 'ignore' });
    proc.once('error', reject);
    proc.once('exit', () => resolve(performance.now() - started));
  });
}
