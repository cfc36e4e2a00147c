import { notifications } from '@mantine/notifications';

/** The service's error body: `{id, name, message, details}` (docs/errors.md). */
export interface ErrorBody {
  id?: string;
  name?: string;
  message?: string;
  details?: { message?: string; description?: string }[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? `The request failed (${status}).`);
    this.name = body.name ?? 'ApiError';
  }
}

/** A response body with the ETag that identifies what it shows (for a later `If-Match`). */
export interface Tagged<T> {
  body: T;
  etag: string | undefined;
}

async function send<T>(
  path: string,
  init: { method?: string; body?: unknown; ifMatch?: string | undefined },
): Promise<Tagged<T>> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
      ...(init.ifMatch !== undefined && { 'if-match': init.ifMatch }),
    },
    ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { message: text.slice(0, 200) };
  }
  if (!response.ok) throw new ApiError(response.status, (parsed ?? {}) as ErrorBody);
  return { body: parsed as T, etag: response.headers.get('etag') ?? undefined };
}

/**
 * A typed request to the service. Paths are relative (`api/admin/...`) so they resolve against the
 * page's <base href>, which carries the service's base path. The session cookie goes along.
 * `ifMatch`: the ETag of what the user edited; the service refuses the write with 412 when it
 * changed meanwhile, so one person's save never silently undoes another's.
 */
export async function request<T>(
  path: string,
  init: { method?: string; body?: unknown; ifMatch?: string | undefined } = {},
): Promise<T> {
  return (await send<T>(path, init)).body;
}

export const get = <T>(path: string) => request<T>(path);
/** A read whose ETag the caller keeps, to send it back with the write that follows. */
export const getTagged = <T>(path: string) => send<T>(path, {});
export const post = <T>(path: string, body?: unknown) =>
  request<T>(path, { method: 'POST', body: body ?? {} });
export const put = <T>(path: string, body: unknown, ifMatch?: string) =>
  request<T>(path, { method: 'PUT', body, ifMatch });
export const del = <T>(path: string) => request<T>(path, { method: 'DELETE' });

/** The first detail that says more than the message, if any. */
function detailOf(error: ApiError): string | undefined {
  const detail = error.body.details?.find((d) => (d.description ?? d.message) !== error.message);
  return detail?.description ?? detail?.message;
}

/**
 * Words for people, per error name of docs/errors.md: the name is a code for programs, and a toast
 * titled "NoAccessError" reads as a crash. A name not listed falls back on the status.
 */
const ERROR_TITLES = new Map<string, string>(
  Object.entries({
    ValidationError: 'Invalid input',
    AuthenticationRequired: 'Please sign in',
    NoAccessError: 'Not allowed',
    InvalidOperationError: 'Not possible now',
    NotFoundError: 'Not found',
    NameExistsError: 'Name already taken',
    PreconditionFailedError: 'Changed by someone else',
    PayloadTooLargeError: 'Too much data',
    ContentTypeerror: 'Unsupported request',
    RateLimitError: 'Too many requests',
    HeadersTooLargeError: 'Request too large',
    InternalError: 'Server error',
    ServiceUnavailableError: 'Service unavailable',
  }),
);

/** The title of an error's toast, in words (never the error's code name). */
export function errorTitle(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong';
  return (
    ERROR_TITLES.get(error.body.name ?? '') ?? (error.status >= 500 ? 'Server error' : 'Request refused')
  );
}

/** Shows an API error as a toast: a title in words, its message (and first detail) as text. */
export function notifyError(error: unknown) {
  const isApi = error instanceof ApiError;
  const detail = isApi ? detailOf(error) : undefined;
  notifications.show({
    color: 'red',
    title: errorTitle(error),
    message: `${error instanceof Error ? error.message : String(error)}${detail ? ` ${detail}` : ''}`,
  });
}

export function notifyDone(message: string) {
  notifications.show({ color: 'green', message });
}

export const enc = encodeURIComponent;
