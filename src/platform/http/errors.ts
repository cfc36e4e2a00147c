import { randomUUID } from 'node:crypto';

export interface ErrorDetail {
  message: string;
  path?: string;
  /** The items a rule found (a refused import lists the flags, fields or segments at fault). */
  affectedItems?: string[];
}

/**
 * The error kinds of the API. `name` is what clients see; it is fixed by the spec's Errors table
 * (including the spelling `ContentTypeerror`). docs/errors.md lists them and a test keeps it in sync.
 */
export const ERROR_KINDS = {
  ValidationError: 400,
  AuthenticationRequired: 401,
  NoAccessError: 403,
  InvalidOperationError: 403,
  NotFoundError: 404,
  NameExistsError: 409,
  ConflictError: 409,
  PreconditionFailedError: 412,
  PayloadTooLargeError: 413,
  ContentTypeerror: 415,
  HeadersTooLargeError: 431,
  RateLimitError: 429,
  InternalError: 500,
  ServiceUnavailableError: 503,
} as const;

export type ErrorName = keyof typeof ERROR_KINDS;

export class AppError extends Error {
  readonly status: number;
  override readonly name: ErrorName;
  readonly details: ErrorDetail[] | undefined;

  /** `extra`: fields an error of this kind carries beside `{id, name, message}` (see toBody). */
  constructor(
    name: ErrorName,
    message: string,
    details?: ErrorDetail[],
    readonly extra?: Record<string, string | boolean>,
  ) {
    super(message);
    this.name = name;
    this.status = ERROR_KINDS[name];
    this.details = details;
  }

  toBody(): ErrorBody {
    return { ...errorBody(this.name, this.message, this.details), ...this.extra };
  }
}

export interface ErrorBody {
  id: string;
  name: ErrorName;
  message: string;
  details?: ErrorDetail[];
}

export function errorBody(name: ErrorName, message: string, details?: ErrorDetail[]): ErrorBody {
  return { id: randomUUID(), name, message, ...(details ? { details } : {}) };
}

export const notFound = (message: string) => new AppError('NotFoundError', message);
export const nameExists = (message: string) => new AppError('NameExistsError', message);
export const invalid = (message: string, details?: ErrorDetail[]) =>
  new AppError('ValidationError', message, details ?? [{ message }]);
export const invalidField = (path: string, message: string) =>
  new AppError('ValidationError', message, [{ path, message }]);

/** The error of a rate-limited request (for @fastify/rate-limit, which sets Retry-After itself). */
export const rateLimitError = (_request: unknown, context: { after: string }) =>
  new AppError('RateLimitError', `Too many requests; try again in ${context.after}.`);
