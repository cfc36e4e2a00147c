import type { PGlite } from '@electric-sql/pglite';
import { withOverrides } from './pglite-overrides.js';

/**
 * Knows when the embedded database may have changed (docs/adr/0009, addendum "Embedded: no probe
 * while nothing was written").
 *
 * With PGlite the database lives in this process and has one connection: every statement, from any
 * part of the service, passes through the instance this watch wraps. So "nothing that could write
 * has completed since X" is known here without asking the database, and a read whose answer only
 * changes with the data (the change version, the configuration's revision) can be kept until then.
 *
 * A statement counts as a possible write unless it is a plain SELECT (`nextval`, `setval` and
 * advisory-lock calls count as writes: `noteUnloggedChange` moves the change version with a
 * SELECT). Scripts (`exec`) and transactions count as writes when they end, whatever they did.
 * The count moves after the statement completes and before its caller resumes, so a writer that
 * has its answer has moved it.
 */
export class WriteWatch {
  private generation = 0;

  /** The instance to hand to everything that runs SQL: `query`, `exec` and `transaction` counted. */
  wrap(pglite: PGlite): PGlite {
    const moved = () => {
      this.generation += 1;
    };
    const query: PGlite['query'] = async (text, params, options) => {
      try {
        return await pglite.query(text, params, options);
      } finally {
        if (mayWrite(text)) moved();
      }
    };
    const exec: PGlite['exec'] = async (text, options) => {
      try {
        return await pglite.exec(text, options);
      } finally {
        moved();
      }
    };
    const transaction: PGlite['transaction'] = async (callback) => {
      try {
        return await pglite.transaction(callback);
      } finally {
        moved();
      }
    };
    return withOverrides(pglite, { query, exec, transaction });
  }

  /**
   * `read`, answered again from its last result while no possible write has completed since
   * that read started. Concurrent callers with nothing kept share one read.
   */
  keep<T>(read: () => Promise<T>): () => Promise<T> {
    let kept: { generation: number; value: T } | undefined;
    let running: { generation: number; promise: Promise<T> } | undefined;
    return () => {
      const generation = this.generation;
      if (kept?.generation === generation) return Promise.resolve(kept.value);
      // A read started at this same generation answers for this caller too.
      if (running?.generation === generation) return running.promise;
      const promise = read().then((value) => {
        // A write completed meanwhile: the value may predate it, so it is not kept.
        if (this.generation === generation) kept = { generation, value };
        return value;
      });
      const current = { generation, promise };
      running = current;
      void promise
        .finally(() => {
          if (running === current) running = undefined;
        })
        .catch(() => {});
      return promise;
    };
  }
}

// Block comments may come first (a statement marked to be prepared, pglite-prepared.ts): inert
// text. A nested comment ends the match early, and then the statement counts as a write.
const READ_ONLY = /^\s*(?:\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\/\s*)*select\b/i;
const WRITING_CALLS = /\b(nextval|setval|pg_advisory\w*|set_config|pg_notify)\s*\(/i;

/** Whether a statement may change data (see the class comment); unsure means yes. */
export function mayWrite(text: string): boolean {
  return !READ_ONLY.test(text) || WRITING_CALLS.test(text);
}
