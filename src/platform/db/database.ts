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
import type { Pool, PoolClient } from 'pg';
import type { DB } from './schema.js';

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
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… selects the server engine; otherwise PGlite. */
  url?: string;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string;
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
  const { PGlite } = await import('@electric-sql/pglite');
  // pg_trgm (flag search, migrations/0010): PGlite takes extensions only when it opens.
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const pglite = await PGlite.create({
    extensions: { pg_trgm },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    parsers: { [INT8_OID]: (value: string) => Number(value) },
  });
  const db = new Kysely<DB>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    engine: 'pglite',
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

async function openPostgres(url: string, poolSize: number, prepared: boolean): Promise<Database> {
  const { default: pg } = await import('pg');
  pg.types.setTypeParser(INT8_OID, (value: string) => Number(value));
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // A broken idle connection must not take the process down; the pool replaces it.
  pool.on('error', () => {});
  // Just-in-time compilation costs more than it saves on this service's short queries (it took
  // 0.9 s of a 1.5 s flag search at 100,000 flags); a session setting, so it works behind poolers.
  pool.on('connect', (client) => {
    client.query('SET jit = off').catch(() => {});
  });
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: prepared ? preparingPool(pool) : pool }),
  });
  return {
    db,
    engine: 'postgres',
    ping: () => ping(db),
    session: async (fn) => {
      const client = await pool.connect();
      try {
        return await fn(async (text, params) => (await client.query(text, params)).rows);
      } finally {
        client.release();
      }
    },
    listen: async (channel, onMessage) => {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      client.on('notification', (msg) => {
        if (msg.channel === channel) onMessage(msg.payload ?? '');
      });
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await client.end();
      };
    },
    close: async () => {
      await db.destroy();
    },
  };
}

async function ping(db: Kysely<DB>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}

/** Statements at least this long are prepared by name (see preparingPool). */
const PREPARE_FROM_LENGTH = 400;

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
    const name =
      text.length < PREPARE_FROM_LENGTH
        ? undefined
        : `q${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
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
