import { createHash } from 'node:crypto';
import {
  Kysely,
  PGliteDialect,
  type PostgresCursor,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  sql,
} from 'kysely';
import type { Client, Pool, PoolClient } from 'pg';
import { initialiseDataDir } from './pglite-init.js';
import { preparedByName, preparing } from './pglite-prepared.js';
import type { DB } from './schema.js';
import { WriteWatch } from './write-watch.js';

export type Engine = 'pglite' | 'postgres';

/** Runs one statement (or, without params, a whole script) on a single session. */
export type RunSql = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  /** Gives fn one session for its whole run: what migrations need for their advisory lock. */
  session<T>(fn: (run: RunSql) => Promise<T>): Promise<T>;
  /** Subscribes to NOTIFY on a channel; resolves to an unsubscribe function. */
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  /** PGlite only: the data directory as a tarball, to start copies from (tests). */
  dump?: () => Promise<Blob>;
  /**
   * `read`, kept between calls while nothing could have changed what it reads. PGlite: until a
   * statement that may write completes in this process (`WriteWatch`). PostgreSQL: other
   * instances write too, so every call reads.
   */
  keepUntilWrite<T>(read: () => Promise<T>): () => Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… selects the server engine; otherwise PGlite. */
  url?: string;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string;
  /**
   * PGlite: shared buffers in MB. PGlite's own default (160 MB) is touched when it opens and
   * stays resident; pages beyond the buffers are read from the data directory's files (the
   * operating system's cache).
   */
  sharedBuffersMb?: number;
  /** PGlite: start from a dumped data directory (tests). */
  loadDataDir?: Blob;
  poolSize?: number;
  /** PostgreSQL: prepare large statements by name (off behind a pooler that cannot keep them). */
  preparedStatements?: boolean;
}

// int8 (event ids, counts) as JavaScript numbers on both engines: they stay far below 2^53.
const INT8_OID = 20;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url
    ? openPostgres(options.url, options.poolSize ?? 10, options.preparedStatements ?? true)
    : openPglite(options);
}

// Each engine's driver is loaded only when used: a PostgreSQL deployment never loads PGlite's
// WebAssembly build, which saves start-up time and memory.
async function openPglite(options: DatabaseOptions): Promise<Database> {
  const { PGlite, parse, protocol } = await import('@electric-sql/pglite');
  // pg_trgm (flag search, migrations/0010): PGlite takes extensions only when it opens.
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  // A new data directory is created apart, so this process opens it with small memory.
  if (options.dataDir && (await checkDataDir(options.dataDir)) === 'new') {
    try {
      await initialiseDataDir(options.dataDir);
    } catch (error) {
      throw new Error(cannotOpen(options.dataDir, error instanceof Error ? error.message : String(error)));
    }
  }
  let opened: InstanceType<typeof PGlite>;
  try {
    opened = await PGlite.create({
      extensions: { pg_trgm },
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      // On PGlite's command line, its own defaults kept (`postgresqlconf` would rewrite the data
      // directory's postgresql.conf).
      ...(options.sharedBuffersMb
        ? { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffersMb}MB`] }
        : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      parsers: { [INT8_OID]: (value: string) => Number(value) },
    });
  } catch (error) {
    if (!options.dataDir) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(cannotOpen(options.dataDir, `PGlite failed while opening it: ${reason}`));
  }
  const watch = new WriteWatch();
  const pglite = watch.wrap(preparing(opened, { parse, protocol }));
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    engine: 'pglite',
    keepUntilWrite: (read) => watch.keep(read),
    ping: () => ping(db),
    dump: () => pglite.dumpDataDir('gzip'),
    // PGlite has one connection; the caller runs before anything else is served (start-up).
    session: (fn) =>
      fn(async (text, params) => {
        if (params) return (await pglite.query<Record<string, unknown>>(text, params)).rows;
        const results = await pglite.exec(text);
        return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
      }),
    listen: async (channel, onMessage) => pglite.listen(channel, onMessage),
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/**
 * A folder with files but no PG_VERSION is not a database PGlite made: PGlite would create a new
 * one over it, so the service refuses instead (it never deletes or overwrites data on its own).
 */
async function checkDataDir(dataDir: string): Promise<'new' | 'existing'> {
  const { readdir, access } = await import('node:fs/promises');
  const entries = await readdir(dataDir).catch(() => [] as string[]);
  if (entries.length === 0) return 'new';
  const hasVersion = await access(`${dataDir}/PG_VERSION`).then(
    () => true,
    () => false,
  );
  if (!hasVersion) {
    throw new Error(
      cannotOpen(
        dataDir,
        'it holds files but no PG_VERSION, so it is not a PGlite data directory (is DATA_DIR the right folder?)',
      ),
    );
  }
  return 'existing';
}

/** How to recover when the embedded database does not open (docs/reliability.md, README "Backups"). */
function cannotOpen(dataDir: string, reason: string): string {
  return [
    `The embedded database in ${dataDir} could not be opened: ${reason}.`,
    'The service has deleted nothing. Make sure no other process uses this folder, then either:',
    `  - restore a backup into a new folder: npm run restore -- <backup.tar.gz> --data-dir <new folder>, and start with DATA_DIR=<new folder>; or`,
    `  - move the folder aside (mv ${dataDir} ${dataDir}.broken) and start again with an empty database.`,
    'Keep the moved folder: PostgreSQL 18 tools (e.g. pg_resetwal, on a copy) may still rescue its data.',
  ].join('\n');
}

async function openPostgres(url: string, poolSize: number, prepared: boolean): Promise<Database> {
  const { default: pg } = await import('pg');
  pg.types.setTypeParser(INT8_OID, (value: string) => Number(value));
  // The database away (a restart, a network cut) must end a request in a 503 within seconds, not
  // hold it: a new connection that does not answer gives up after CONNECT_TIMEOUT_MS (also the
  // longest wait for a free pooled connection), and TCP keepalive finds dead idle connections.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  // A broken idle connection must not take the process down; the pool replaces it.
  pool.on('error', () => {});
  // Just-in-time compilation costs more than it saves on this service's short queries (it took
  // 0.9 s of a 1.5 s flag search at 100,000 flags); a session setting, so it works behind poolers.
  pool.on('connect', (client) => {
    // A connection cut while checked out between two queries (in a transaction, a session)
    // reports an 'error' no query receives; unheard, it would end the process. The next query
    // fails instead, and the pool drops the connection on release.
    client.on('error', () => {});
    client.query('SET jit = off').catch(() => {});
  });
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: prepared ? preparingPool(pool) : pool }),
  });
  return {
    db,
    engine: 'postgres',
    keepUntilWrite: (read) => read,
    ping: () => ping(db),
    session: async (fn) => {
      const client = await pool.connect();
      try {
        return await fn(async (text, params) => (await client.query(text, params)).rows);
      } finally {
        client.release();
      }
    },
    listen: (channel, onMessage) =>
      listenWithReconnect(
        () =>
          new pg.Client({
            connectionString: url,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
            keepAlive: true,
            keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
          }),
        `LISTEN ${pg.escapeIdentifier(channel)}`,
        channel,
        onMessage,
      ),
    close: async () => {
      await db.destroy();
    },
  };
}

/** PostgreSQL: how long opening a connection (or waiting for a pooled one) may take. */
const CONNECT_TIMEOUT_MS = 5000;
/** PostgreSQL: idle connections are probed by TCP keepalive after this long. */
const KEEPALIVE_DELAY_MS = 10_000;
/** The LISTEN session checks that it is alive this often (a silent network cut sends no error). */
const LISTEN_HEARTBEAT_MS = 5000;
/** Reconnection attempts of the LISTEN session start this far apart and back off to the maximum. */
const LISTEN_RETRY_MS = 100;
const LISTEN_RETRY_MAX_MS = 2000;

/**
 * LISTEN on one dedicated session that survives the database going away: when the session ends
 * (a restart, a cut connection, a failed heartbeat) it is opened again, with backoff, and LISTEN
 * is sent again, until the returned function is called. Notifications sent while no session was
 * listening are lost: readers must not depend on them alone (the configuration cache also polls).
 * The first connection's failure rejects, so a service cannot start without its database.
 */
async function listenWithReconnect(
  newClient: () => Client,
  statement: string,
  channel: string,
  onMessage: (payload: string) => void,
): Promise<() => Promise<void>> {
  let current: Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const lost = (client: Client) => {
    if (current !== client) return;
    current = undefined;
    if (heartbeat) clearInterval(heartbeat);
    client.end().catch(() => {});
    scheduleRetry(LISTEN_RETRY_MS);
  };

  const open = async () => {
    const client = newClient();
    // A broken session reports an error and then ends; both lead to a new session.
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', (msg) => {
      if (msg.channel === channel) onMessage(msg.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(statement);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    if (stopped) {
      await client.end().catch(() => {});
      return;
    }
    // Only a listening session counts: a failure before this point is the caller's (first) or
    // the retry's to handle.
    current = client;
    heartbeat = setInterval(() => {
      // A session that does not answer within the interval is treated as gone.
      const timer = setTimeout(() => lost(client), LISTEN_HEARTBEAT_MS);
      timer.unref();
      client.query('SELECT 1').then(
        () => clearTimeout(timer),
        () => {
          clearTimeout(timer);
          lost(client);
        },
      );
    }, LISTEN_HEARTBEAT_MS);
    heartbeat.unref();
  };

  const scheduleRetry = (delay: number) => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      open().catch(() => scheduleRetry(Math.min(delay * 2, LISTEN_RETRY_MAX_MS)));
    }, delay);
    retry.unref();
  };

  await open();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    if (heartbeat) clearInterval(heartbeat);
    const client = current;
    current = undefined;
    // A session on a silent network would wait for the operating system's timeout: not at shutdown.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      client?.end(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, CONNECT_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  };
}

async function ping(db: Kysely<DB>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}

/**
 * Large statements (the one-query flag view, the snapshot reads) cost more to plan than to run:
 * the flag view plans in ~2 ms and executes in ~0.6 ms. Sending them as named statements (`pg`'s
 * `{name, text, values}` query config) lets PostgreSQL keep the plan per connection. The name is
 * derived from the text, so the set of prepared statements is bounded by the distinct large
 * queries the code builds. Kysely receives this pool in place of `pg`'s: same connections, only
 * the way a large statement is sent differs.
 */
function preparingPool(pool: Pool): PostgresPool {
  return {
    connect: async () => new PreparingClient(await pool.connect()),
    end: () => pool.end(),
    options: pool.options,
  };
}

class PreparingClient implements PostgresPoolClient {
  constructor(private readonly client: PoolClient) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    input: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely sends a cursor only to a dialect configured with one; this one is not.
    if (typeof input !== 'string') throw new Error('streaming queries are not configured');
    return this.run<R>(input, parameters ? [...parameters] : []);
  }

  private async run<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    const name = preparedByName(text)
      ? `q${createHash('sha1').update(text).digest('hex').slice(0, 20)}`
      : undefined;
    const result = await this.client.query({ name, text, values });
    // pg's result in the shape Kysely reads (pg types `command` as any string and rows as records).
    return {
      command: result.command as PostgresQueryResult<R>['command'],
      rowCount: result.rowCount ?? 0,
      rows: result.rows as R[],
    };
  }

  release(destroy?: boolean) {
    this.client.release(destroy);
  }
}
