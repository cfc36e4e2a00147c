import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { ensureAdminTokens, parseInitTokens } from './features/access/index.js';
import { ensureAdminUser } from './features/users/index.js';
import { openDatabase } from './platform/db/database.js';
import { migrate } from './platform/db/migrate.js';

/** How long a stop may take to finish requests in flight and write pending metrics. */
const STOP_DEADLINE_MS = 20_000;

/**
 * The service with its database, as src/main.ts starts it: database -> migrate -> tokens -> app ->
 * listen; SIGTERM/SIGINT stop it cleanly. `started`: when the process began its start.
 */
export async function startService(config: Config, started: number) {
  const initTokens = parseInitTokens(config.INIT_ADMIN_API_TOKENS);
  const say = (message: string) => process.stdout.write(`${message}\n`);

  let dataDir: string | undefined;
  if (config.DATABASE_URL) {
    say('Connecting to PostgreSQL (DATABASE_URL)…');
  } else {
    dataDir = resolve(config.DATA_DIR);
    await mkdir(dataDir, { recursive: true });
    say(`Opening the embedded PostgreSQL (PGlite) in ${dataDir} (a new database takes a few seconds)…`);
  }
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir,
    poolSize: config.DATABASE_POOL_SIZE,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    sharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
  });
  const applied = await migrate(database);
  if (applied.length > 0) say(`Applied migrations: ${applied.join(', ')}`);

  const generated = await ensureAdminTokens(database.db, initTokens);
  if (generated) {
    say('No API token existed, so one admin token was created. It is shown only now; keep it safe:');
    say(`  ${generated}`);
    say('Use it as the Authorization header of admin API requests.');
  }

  const admin = await ensureAdminUser(database.db, {
    username: config.INIT_ADMIN_USER,
    ...(config.INIT_ADMIN_PASSWORD !== undefined && { password: config.INIT_ADMIN_PASSWORD }),
  });
  if (admin?.generated) {
    say(
      `No user existed, so the Admin user "${admin.username}" was created. Its password is shown only now:`,
    );
    say(`  ${admin.generated}`);
    say('Sign in with it in the web UI (the address below) and change it.');
  } else if (admin) {
    say(`No user existed, so the Admin user "${admin.username}" was created with INIT_ADMIN_PASSWORD.`);
  }

  const app = await buildApp({ database, config, now: () => new Date() });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'stopping: finishing requests in flight');
    // A stop that cannot finish (a connection or a database call that never ends) must not keep
    // the process alive: an orchestrator waits for it to exit before starting the next one.
    setTimeout(() => {
      app.log.error({ signal, pending: process.getActiveResourcesInfo() }, 'stop took too long; exiting');
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'error while stopping');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.PORT, host: config.HOST });
  const ms = Math.round(performance.now() - started);
  say(
    `Listening on http://localhost:${config.PORT}${config.BASE_URI_PATH}/ (${database.engine}, ready in ${ms} ms). Web UI there; API docs: /docs`,
  );
}
