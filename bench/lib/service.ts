import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ADMIN_TOKEN = '*:*.bench-admin-token-0123456789abcdef';

/** A child process started by the runner; every one is registered so cleanup can stop it. */
export interface Child {
  proc: ChildProcess;
  pid: number;
  port: number;
  /** Milliseconds from spawn to the ready line, measured by the runner. */
  spawnToReadyMs: number;
  /** What the process itself printed as "ready in X ms", if it did. */
  internalReadyMs: number | undefined;
  output: () => string;
}

const running = new Set<ChildProcess>();

/** A port the kernel just said was free on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface StartOptions {
  /** argv after `node`. */
  args: string[];
  env: Record<string, string>;
  /** The stdout line that says the process is ready. */
  readyPattern: RegExp;
  timeoutMs?: number;
  port: number;
}

/** Spawns a node process and resolves once its stdout shows readyPattern. */
export function startChild(options: StartOptions): Promise<Child> {
  const started = performance.now();
  const proc = spawn(process.execPath, options.args, {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`not ready within ${options.timeoutMs ?? 60_000} ms:\n${out}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => options.readyPattern.test(l));
      if (!line) return;
      const spawnToReadyMs = performance.now() - started;
      clearTimeout(timer);
      proc.stdout?.off('data', onData);
      proc.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
      });
      const internal = /ready in (\d+(?:\.\d+)?) ms/.exec(line);
      resolve({
        proc,
        pid: proc.pid ?? -1,
        port: options.port,
        spawnToReadyMs,
        internalReadyMs: internal ? Number(internal[1]) : undefined,
        output: () => out,
      });
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before ready:\n${out}`));
    });
  });
}

/** SIGTERM, then SIGKILL after graceMs; resolves when the process is gone. */
export function stopChild(child: Child | ChildProcess, graceMs = 5_000): Promise<void> {
  const proc = 'proc' in child ? child.proc : child;
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

/** Stops every child still running (cleanup on success and on failure). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => stopChild(p, 2_000)));
}

/** Proportional set size of a process in MB (its share of pages shared with others); 0 once gone. */
export function pssMb(pid: number): number {
  try {
    const kb = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return kb ? Number(kb[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The processes whose parent is `pid`, from /proc (Linux). */
export function childPids(pid: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(entry)] : [];
    } catch {
      return []; // ended meanwhile
    }
  });
}

/** The most memory a process has held since it started, in MB, from /proc/<pid>/status (VmHWM). */
export function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!kb) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(kb[1]) / 1024;
}

/** Resident set size of a process in MB, from /proc/<pid>/status (VmRSS). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb[1]) / 1024;
}

export interface EngineTarget {
  engine: 'postgres' | 'pglite';
  /** DATABASE_URL or DATA_DIR, whichever the engine needs. */
  env: Record<string, string>;
}

/**
 * The node flags `npm start` passes (package.json's start script: `node <flags> scripts/start.mjs`),
 * so the bench starts the bundle as users do (docs/adr/0017).
 */
export function startNodeFlags(script: 'start' | 'start:edge' = 'start'): string[] {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const command = pkg.scripts[script] ?? '';
  const flags = /^node((?:\s+--\S+)*)\s+scripts\/start\.mjs$/.exec(command.trim());
  if (!flags)
    throw new Error(`package.json's ${script} script is not "node [--flags] scripts/start.mjs": ${command}`);
  return (flags[1] ?? '').split(/\s+/).filter(Boolean);
}

/**
 * Starts the flag service on the engine: `node --import tsx src/main.ts` (`npm run dev`), or the
 * bundled `node dist/main.js` with `npm start`'s node flags when BENCH_DIST=1 (run `npm run build`
 * first). BENCH_NODE_ARGS come after them, so they can override one.
 */
export async function startService(target: EngineTarget, timeoutMs = 120_000): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: [
      ...(process.env.BENCH_DIST === '1' ? startNodeFlags() : []),
      // Extra node flags for the service only, e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      ...(process.env.BENCH_DIST === '1' ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts']),
    ],
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
      ...target.env,
    },
    readyPattern: /^Listening on /,
    timeoutMs,
    port,
  });
}
