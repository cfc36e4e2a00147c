import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable, translateDbError } from '../db/pg-errors.js';
import { AppError, type ErrorName, errorBody } from './errors.js';
import { validationDetails } from './validation.js';

/** Fastify's own client-error codes, mapped to our error names. */
const FASTIFY_CODES: Record<string, [ErrorName, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    'ContentTypeerror',
    'Unsupported content type: send the body as JSON with the header "Content-Type: application/json".',
  ],
  FST_ERR_CTP_BODY_TOO_LARGE: [
    'PayloadTooLargeError',
    'The request body is larger than the allowed maximum.',
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['ValidationError', 'The body is empty but the content type says JSON.'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['ValidationError', 'The body is not valid JSON.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'ValidationError',
    'The Content-Length header does not match the body.',
  ],
  FST_ERR_BAD_URL: ['ValidationError', 'The request path is not a valid URL (malformed percent-encoding).'],
  FST_ERR_ASYNC_CONSTRAINT: ['ValidationError', 'The request could not be routed.'],
};

const BY_STATUS: Record<number, ErrorName> = {
  400: 'ValidationError',
  401: 'AuthenticationRequired',
  403: 'NoAccessError',
  404: 'NotFoundError',
  413: 'PayloadTooLargeError',
  415: 'ContentTypeerror',
  429: 'RateLimitError',
};

function toAppError(error: FastifyError): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const details = validationDetails(error.validation as never, error.validationContext);
    return new AppError(
      'ValidationError',
      'Request validation failed: your request body or parameters contain invalid data. Refer to the `details` list for more information.',
      details,
    );
  }
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) return new AppError(known[0], known[1], [{ message: known[1] }]);
  // secure-json-parse and JSON.parse failures reach us as 400s with their own message.
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const name = BY_STATUS[status] ?? 'ValidationError';
    return new AppError(name, error.message, [{ message: error.message }]);
  }
  const translated = translateDbError(error);
  if (translated instanceof AppError) return translated;
  return new AppError('InternalError', 'Something went wrong on our side; the error has been logged.');
}

/** Body for errors Fastify raises before routing (bad URL encoding, constraint failures). */
export function frameworkErrorBody(error: FastifyError) {
  return toAppError(error).toBody();
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let appError: AppError;
    try {
      appError = toAppError(error);
    } catch (mappingError) {
      // A bug while describing an error must still end in our JSON body, never Fastify's default.
      request.log.error({ err: mappingError, original: error }, 'error mapping failed');
      appError = new AppError(
        'InternalError',
        'Something went wrong on our side; the error has been logged.',
      );
    }
    // The database away is an outage to report once per request, not a bug in this service.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'request failed: database unavailable');
    } else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    reply.code(appError.status).type('application/json; charset=utf-8').send(appError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const message = `The path you were looking for (${request.url.split('?')[0]}) is not available.`;
    reply.code(404).send(errorBody('NotFoundError', message, [{ message }]));
  });
}

/** Errors Node's HTTP parser raises before Fastify sees a request (oversized headers, garbage). */
export function clientErrorResponse(
  error: NodeJS.ErrnoException,
  headers: Record<string, string> = {},
): string {
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const [status, text, name]: [number, string, ErrorName] = tooLarge
    ? [431, 'Request Header Fields Too Large', 'HeadersTooLargeError']
    : [400, 'Bad Request', 'ValidationError'];
  const message = tooLarge
    ? 'The request headers are too large.'
    : 'The request could not be parsed as HTTP.';
  const body = JSON.stringify(errorBody(name, message, [{ message }]));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`;
}
