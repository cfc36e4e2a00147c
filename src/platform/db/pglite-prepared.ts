import { createHash } from 'node:crypto';
import type { messages, PGlite, parse, protocol, QueryOptions, Results } from '@electric-sql/pglite';
import { withOverrides } from './pglite-overrides.js';

/** PGlite's protocol helpers, passed in: this module loads nothing of PGlite (PostgreSQL never needs it). */
export interface PgliteProtocol {
  parse: typeof parse;
  protocol: typeof protocol;
}

/** Statements at least this long are prepared by name, on PostgreSQL (see preparingPool) and here. */
export const PREPARE_FROM_LENGTH = 400;
/**
 * A statement whose text starts with this comment is prepared by name whatever its length: a short
 * statement with a fixed text that runs very often (the read cache's version probe, at every
 * admin read on PostgreSQL), where parsing and planning are most of what the database does.
 */
export const PREPARE_ALWAYS = '/* prepared */ ';

/** Whether a statement is sent by name (on PGlite, from its second time): long, or marked. */
export const preparedByName = (text: string) =>
  text.length >= PREPARE_FROM_LENGTH || text.startsWith(PREPARE_ALWAYS);

/** Named statements kept on PGlite; the least recently used is closed to make room. */
export const MAX_PREPARED = 64;
/** Long statements seen once and not prepared yet (the oldest forgotten first). */
const MAX_SEEN = 256;

interface Prepared {
  name: string;
  /** The type of each parameter, as PostgreSQL inferred it (how PGlite serialises the values). */
  parameterTypes: number[];
  /** The statement's columns; none for a statement that returns no rows. */
  columns: messages.RowDescriptionMessage | undefined;
}

type Query = <T>(text: string, params?: unknown[], options?: QueryOptions) => Promise<Results<T>>;

/**
 * Statements sent to PGlite as named prepared statements (docs/adr/0016).
 *
 * PGlite's `query` parses, describes, binds, describes again and executes every statement, each a
 * call into the WebAssembly database, and PostgreSQL plans it again each time: the flag view
 * plans in ~1 ms and runs in ~0.6 ms there, and even `SELECT 1` costs five calls. A statement
 * prepared once by name keeps its plan in the database session (PGlite has one) and runs as one
 * call (bind, execute, sync). As on PostgreSQL, only long statements, and only from their second
 * time: a plan lives in the WebAssembly memory, which never shrinks, and statements built with a
 * varying text (a list of 1,000 names) made the process 70-125 MB larger when each was prepared.
 * The name is derived from the text; the `MAX_PREPARED` most recently used are kept.
 *
 * Runs inside PGlite's own locks, as its `query` does: outside a transaction the transaction lock
 * and the query lock; inside one (`transaction`'s callback) the query lock only.
 */
export function preparing(pglite: PGlite, { parse, protocol }: PgliteProtocol): PGlite {
  const prepared = new Map<string, Prepared>();
  const seen = new Set<string>();

  /** Whether to send this statement by name: long or marked, and sent before (see `seen`). */
  const named = (text: string, options: QueryOptions | undefined) => {
    if (!preparedByName(text) || options?.paramTypes) return false;
    if (prepared.has(text) || seen.delete(text)) return true;
    seen.add(text);
    if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value as string);
    return false;
  };

  const run = async <T>(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
    inTransaction: boolean,
  ) => {
    let statement = prepared.get(text);
    if (statement) {
      // Most recently used last: the first entry is the one to close when room is needed.
      prepared.delete(text);
      prepared.set(text, statement);
    } else {
      const name = `q${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      const oldest = prepared.size >= MAX_PREPARED ? prepared.entries().next().value : undefined;
      // Closed first in the same call, even when the new statement then fails to parse.
      if (oldest) prepared.delete(oldest[0]);
      const described = await pglite.execProtocol(
        concat(
          ...(oldest ? [protocol.serialize.close({ type: 'S', name: oldest[1].name })] : []),
          protocol.serialize.parse({ name, text }),
          protocol.serialize.describe({ type: 'S', name }),
          protocol.serialize.sync(),
        ),
        { syncToFs: false },
      );
      statement = {
        name,
        parameterTypes: parse.parseDescribeStatementResults(described.messages),
        columns: described.messages.find(
          (m): m is messages.RowDescriptionMessage => m.name === 'rowDescription',
        ),
      };
      prepared.set(text, statement);
    }
    const types = statement.parameterTypes;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serialize = pglite.serializers[types[i] ?? 0];
      return serialize ? serialize(value) : String(value);
    });
    const result = await pglite.execProtocol(
      concat(
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ),
      { syncToFs: !inTransaction },
    );
    const replies = statement.columns ? [statement.columns, ...result.messages] : result.messages;
    return parse.parseResults(replies, pglite.parsers, options)[0] as Results<T>;
  };

  const query: Query = async (text, params = [], options) => {
    if (!named(text, options)) return pglite.query(text, params, options);
    await pglite.waitReady;
    return pglite._runExclusiveTransaction(() =>
      pglite._runExclusiveQuery(() => run(text, params, options, false)),
    );
  };
  const transaction: PGlite['transaction'] = (callback) =>
    pglite.transaction((tx) => {
      const txQuery: Query = async (text, params = [], options) => {
        if (!named(text, options)) return tx.query(text, params, options);
        return pglite._runExclusiveQuery(() => run(text, params, options, true));
      };
      return callback(
        new Proxy(tx, {
          get: (target, property) => (property === 'query' ? txQuery : Reflect.get(target, property, target)),
        }),
      );
    });

  return withOverrides(pglite, { query, transaction });
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
