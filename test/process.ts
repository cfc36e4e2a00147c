import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { withDatabase } from './global-setup.js';

/** A port nobody listens on right now (the OS picks it; the service is then told to use it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Service {
  url: string;
  /** The process's id (the node process itself, not a shell). */
  pid: number;
  /** Everything the process printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Sends the signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** fetch against the service with an admin token (or none). */
  request(path: string, token: string | undefined, init?: RequestInit): Promise<Response>;
}

const running = new Set<ChildProcess>();

/**
 * Starts `node --import tsx src/main.ts` (or the node arguments given, e.g. `scripts/start.mjs`,
 * what `npm start` runs) and resolves once it prints "Listening on".
 */
export async function startService(
  env: Record<string, string>,
  timeoutMs = 90_000,
  args = ['--import', 'tsx', 'src/main.ts'],
): Promise<Service> {
  const port = await freePort();
  const base: Record<string, string | undefined> = { ...process.env };
  for (const key of ['DATABASE_URL', 'DATA_DIR', 'INIT_ADMIN_API_TOKENS', 'PORT', 'HOST', 'LOG_LEVEL']) {
    delete base[key];
  }
  const child = spawn(process.execPath, args, {
    cwd: process.cwd(),
    env: { ...base, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  // 'close', not 'exit': once the process's output has all arrived too (its last log lines).
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => {
      running.delete(child);
      resolve(code);
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const service: Service = {
    url,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited;
    },
    request: (path, token, init = {}) =>
      fetch(url + path, {
        ...init,
        headers: {
          ...(token ? { authorization: token } : {}),
          ...(init.body ? { 'content-type': 'application/json' } : {}),
        },
      }),
  };
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  void exited.then(() => {
    ended = true;
  });
  while (!out.includes('Listening on')) {
    if (ended || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start (exit: ${ended}).\nstdout:\n${out}\nstderr:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return service;
}

/** Kills whatever is still running (afterAll). */
export async function killAll(): Promise<void> {
  const waits = [...running].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await Promise.all(waits);
}

/** Where a service keeps its data: a temporary PGlite directory or a new empty PostgreSQL database. */
export interface Store {
  env: Record<string, string>;
  url?: string;
  remove(): Promise<void>;
}

export async function pgliteStore(): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), 'flagship-life-'));
  return { env: { DATA_DIR: dir }, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function postgresStore(serverUrl: string): Promise<Store> {
  const name = `flagship_life_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = withDatabase(serverUrl, name);
  return {
    env: { DATABASE_URL: url },
    url,
    remove: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** The store for this test run's engine. */
export function engineStore(): Promise<Store> {
  return process.env.TEST_ENGINE === 'postgres'
    ? postgresStore(process.env.TEST_DATABASE_URL!)
    : pgliteStore();
}

/** Admin tokens as the service prints them. */
export function printedTokens(stdout: string): string[] {
  return stdout.match(/\*:\*\.[0-9a-f]{16,}/g) ?? [];
}
