import { AppError } from '../http/errors.js';

/** PostgreSQL SQLSTATEs that a client's input can cause; both engines report the same codes. */
const CLIENT_CAUSED: Record<string, (message: string) => AppError> = {
  // unique_violation
  '23505': () => new AppError('NameExistsError', 'A resource with that name or id already exists'),
  // foreign_key_violation: a reference to something that does not exist (or is still referenced)
  '23503': () => new AppError('NotFoundError', 'A referenced resource does not exist or is still in use'),
  // check_violation, not_null_violation
  '23514': () => new AppError('ValidationError', 'A value does not satisfy the rules for its field'),
  '23502': () => new AppError('ValidationError', 'A required value is missing'),
  // character_not_in_repertoire / untranslatable_character / invalid text (NUL and friends)
  '22021': () => new AppError('ValidationError', 'Strings may not contain NUL characters'),
  '22P05': () => new AppError('ValidationError', 'Strings may not contain NUL characters'),
  // numeric_value_out_of_range, invalid_text_representation, invalid datetime, string too long
  '22003': () => new AppError('ValidationError', 'A number is out of range'),
  '22P02': () => new AppError('ValidationError', 'A value has the wrong format'),
  '22007': () => new AppError('ValidationError', 'A date has the wrong format'),
  '22008': () => new AppError('ValidationError', 'A date is out of range'),
  '22001': () => new AppError('ValidationError', 'A value is too long'),
  // invalid_regular_expression (pattern checks done in SQL)
  '2201B': () => new AppError('ValidationError', 'A regular expression is invalid'),
  // program_limit_exceeded, e.g. a jsonb too deeply nested
  '54000': () => new AppError('ValidationError', 'A value is too large or too deeply nested'),
  '54001': () => new AppError('ValidationError', 'A value is too deeply nested'),
};

/** Whether the database refused what a request sent (a SQLSTATE above), not the request's luck. */
export function isClientCaused(error: unknown): boolean {
  const code = sqlState(error);
  return code !== undefined && code in CLIENT_CAUSED;
}

export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * SQLSTATEs of a database that is away or refusing work for now: connection_exception (class 08),
 * admin_shutdown, crash_shutdown, cannot_connect_now (a restart), too_many_connections.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Socket errors of a connection that could not be made or was cut. */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
]);
/** What `pg` and `pg-pool` say when a connection ends, cannot be made in time, or was lost. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/;

/**
 * Whether an error says the database cannot be reached right now (rather than what a query did):
 * the request may succeed later without any change, so it is a 503, not a 500.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  // Before the SQLSTATE: 'EPIPE' has a SQLSTATE's shape.
  if (typeof code === 'string' && UNAVAILABLE_ERRNOS.has(code)) return true;
  const state = sqlState(error);
  if (state) return state.startsWith('08') || UNAVAILABLE_STATES.has(state);
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  // Node reports a refused connection to a name with several addresses as an AggregateError.
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database is not available right now; try again in a few seconds.';

/**
 * Turns a database error the client caused into its API error, and a database that cannot be
 * reached into a 503 ServiceUnavailableError; anything else stays as it is.
 */
export function translateDbError(error: unknown): unknown {
  if (isDatabaseUnavailable(error)) {
    return new AppError('ServiceUnavailableError', DATABASE_UNAVAILABLE_MESSAGE, [
      { message: DATABASE_UNAVAILABLE_MESSAGE },
    ]);
  }
  const code = sqlState(error);
  const make = code ? CLIENT_CAUSED[code] : undefined;
  if (!make) return error;
  const appError = make((error as Error).message);
  // PostgreSQL's detail names the offending key, e.g. 'Key (type)=(team) is not present in table "tag_types".'
  const detail = (error as { detail?: unknown }).detail;
  return typeof detail === 'string'
    ? new AppError(appError.name, appError.message, [{ message: detail }])
    : appError;
}
