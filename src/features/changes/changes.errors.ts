import { AppError } from '../../platform/http/errors.js';
import { etagOf } from '../../platform/http/etag.js';

/** A change made against a state its target no longer has (409): edit it or discard it. */
export class ChangeConflict extends AppError {
  constructor(message: string) {
    super('ConflictError', message);
  }
}

/**
 * Refuses a change whose snapshot (what it was made against) differs from the target now. Compared
 * as the API shows them, canonically (key order and absent members do not count), as ETags are.
 */
export function checkSnapshot(snapshot: unknown, current: unknown, what: string): void {
  if (snapshot === undefined || etagOf(snapshot) === etagOf(current)) return;
  throw new ChangeConflict(
    `${what} changed since this change was made against it; review the change against its current state.`,
  );
}
