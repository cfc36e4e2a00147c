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

export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Turns a database error the client caused into its API error; anything else stays as it is. */
export function translateDbError(error: unknown): unknown {
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
