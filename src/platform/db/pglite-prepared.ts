import { createHash } from 'node:crypto';
import type { messages, PGlite, parse, protocol, QueryOptions, Results } from '@electric-sql/pglite';

/** PGlite's protocol helpers, passed in: this module loads nothing of PGlite (PostgreSQL never needs it). */
export interface PgliteProtocol {
  parse: typeof parse;
  protocol: typeof protocol;
}

/** Statements at least this long are prepared by name on PostgreSQL (see preparingPool). */
export const PREPARE_FROM_LENGTH = 400;
/** Named statements kept on PGlite; the least recently used is closed to make room. */
const MAX_PREPARED = 256;

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
 * call (bind, execute, sync). Unlike PostgreSQL's pool (long statements only), every statement is
 * prepared here: the calls saved matter for short ones too. The name is derived from the text; the
 * `MAX_PREPARED` most recently used are kept, so statements built with a varying text (lists of
 * parameters) cannot grow the set without bound.
 *
 * Runs inside PGlite's own locks, as its `query` does: outside a transaction the transaction lock
 * and the query lock; inside one (`transaction`'s callback) the query lock only.
 */
export function preparing(pglite: PGlite, { parse, protocol }: PgliteProtocol): PGlite {
  const prepared = new Map<string, Prepared>();

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
    if (options?.paramTypes) return pglite.query(text, params, options);
    await pglite.waitReady;
    return pglite._runExclusiveTransaction(() =>
      pglite._runExclusiveQuery(() => run(text, params, options, false)),
    );
  };
  const transaction: PGlite['transaction'] = (callback) =>
    pglite.transaction((tx) => {
      const txQuery: Query = async (text, params = [], options) => {
        if (options?.paramTypes) return tx.query(text, params, options);
        return pglite._runExclusiveQuery(() => run(text, params, options, true));
      };
      return callback(
        new Proxy(tx, {
          get: (target, property) => (property === 'query' ? txQuery : Reflect.get(target, property, target)),
        }),
      );
    });

  const overrides: Record<PropertyKey, unknown> = { query, transaction };
  return new Proxy(pglite, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
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
