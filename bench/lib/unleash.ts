/**
 * Unleash (the open-source server) as a comparator: installed on demand from the npm registry into
 * bench/.unleash (git-ignored, never a project dependency) and started as a child process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN, type Child, freePort, ROOT, startChild } from './service.js';

/** What `npm run bench -- --compare unleash` installs. */
export const UNLEASH_SPEC = 'unleash-server@8.2';
export const UNLEASH_PREFIX = 'bench/.unleash';
const PACKAGE_JSON = join(ROOT, UNLEASH_PREFIX, 'node_modules/unleash-server/package.json');
/** The package's own entry (`npm start` of unleash-server runs `node ./dist/server.js`). */
const SERVER = `${UNLEASH_PREFIX}/node_modules/unleash-server/dist/server.js`;

/** Installed version, if any. */
export function installedUnleash(): string | undefined {
  if (!existsSync(PACKAGE_JSON)) return undefined;
  return (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: string }).version;
}

/** `npm install --prefix bench/.unleash unleash-server@8.2 --no-audit --no-fund`, only when not installed yet. */
export async function ensureUnleash(log: (m: string) => void): Promise<string> {
  const present = installedUnleash();
  if (present?.startsWith('8.2.')) {
    log(`unleash-server ${present} already installed in ${UNLEASH_PREFIX}`);
    return present;
  }
  const args = ['install', '--prefix', UNLEASH_PREFIX, UNLEASH_SPEC, '--no-audit', '--no-fund'];
  log(`Installing: npm ${args.join(' ')}`);
  await new Promise<void>((resolve, reject) => {
    const npm = spawn('npm', args, { cwd: ROOT, stdio: 'inherit' });
    npm.once('error', reject);
    npm.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`npm install exited with ${code}`)),
    );
  });
  const version = installedUnleash();
  if (!version?.startsWith('8.2.')) throw new Error(`expected unleash-server 8.2.x, found ${version}`);
  return version;
}

/**
 * Environment of the Unleash process, besides the database and the port. Limits that would cap or
 * fail the load runs are lifted and documented in bench/README.md; no outbound calls.
 */
export const UNLEASH_ENV: Record<string, string> = {
  NODE_ENV: 'production',
  TZ: 'UTC',
  // "Unleash has started." is logged at info; no request logging at this level (REQUEST_LOGGER_ENABLE off).
  LOG_LEVEL: 'info',
  DATABASE_SSL: 'false',
  INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
  SEND_TELEMETRY: 'false',
  CHECK_VERSION: 'false',
  // Default 20,000 requests per minute per token kind and for the SDK API (333 req/s): lifted.
  TOKEN_AUTHENTICATION_RATE_LIMIT_PER_MINUTE: '100000000',
  SDK_API_RATE_LIMIT_PER_MINUTE: '100000000',
  // Default 15 searches per minute: every search of the load would be a 429.
  SEARCH_FEATURES_RATE_LIMIT_PER_MINUTE: '100000000',
  // Default 5,000 flags per instance: the create scenario could reach it.
  UNLEASH_FEATURE_FLAGS_LIMIT: '1000000',
};

/** Starts Unleash on the database; resolves once it logs "Unleash has started." (migrations included). */
export async function startUnleash(databaseUrl: string): Promise<Child> {
  const port = await freePort();
  return startChild({
    args: [SERVER],
    env: { ...UNLEASH_ENV, DATABASE_URL: databaseUrl, HTTP_HOST: '127.0.0.1', HTTP_PORT: String(port) },
    readyPattern: /Unleash has started/,
    timeoutMs: 180_000,
    port,
  });
}
