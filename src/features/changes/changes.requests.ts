import { checkIfMatch, isConditional, preconditionFailed } from '../../platform/http/etag.js';
import { ChangeConflict } from './changes.errors.js';

/**
 * How a request that depends on the current state becomes a change made against it (its snapshot),
 * for the routes of every slice.
 */

/**
 * A PUT or DELETE with If-Match: `write` gets the state the header's tag names as its snapshot
 * (412 when the tag names another state, or when the target changes before the write locks it).
 * Without a condition (no header, `*`), no snapshot and no read.
 */
export async function againstIfMatch<S, R>(
  ifMatch: string | undefined,
  read: () => Promise<S>,
  write: (snapshot: S | undefined) => Promise<R>,
): Promise<R> {
  if (!isConditional(ifMatch)) return write(undefined);
  const before = await read();
  await checkIfMatch(ifMatch, () => before);
  try {
    return await write(before);
  } catch (error) {
    throw error instanceof ChangeConflict ? preconditionFailed() : error;
  }
}

/** How often a patch is computed again when its target changed between the read and the write. */
const ATTEMPTS = 10;

/**
 * A PATCH: `write` computes the change from the state as read and makes it against that state, so
 * a concurrent write is never overwritten: on a conflict the change is computed again on the newer
 * state (with If-Match, refused with 412 instead).
 */
export async function recomputedOnConflict<S, R>(
  ifMatch: string | undefined,
  read: () => Promise<S>,
  write: (current: S) => Promise<R>,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const current = await read();
    await checkIfMatch(ifMatch, () => current);
    try {
      return await write(current);
    } catch (error) {
      if (!(error instanceof ChangeConflict)) throw error;
      if (isConditional(ifMatch)) throw preconditionFailed();
      if (attempt >= ATTEMPTS) throw error;
    }
  }
}
