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

/**
 * A typed request to the service. Paths are relative (`api/admin/...`) so they resolve against the
 * page's <base href>, which carries the service's base path. The session cookie goes along.
 */
export async function request<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(init.body !== undefined && { 'content-type': 'application/json' }),
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
  return parsed as T;
}

export const get = <T>(path: string) => request<T>(path);
export const post = <T>(path: string, body?: unknown) =>
  request<T>(path, { method: 'POST', body: body ?? {} });
export const put = <T>(path: string, body: unknown) => request<T>(path, { method: 'PUT', body });
export const del = <T>(path: string) => request<T>(path, { method: 'DELETE' });

/** The first detail that says more than the message, if any. */
function detailOf(error: ApiError): string | undefined {
  const detail = error.body.details?.find((d) => (d.description ?? d.message) !== error.message);
  return detail?.description ?? detail?.message;
}

/** Shows an API error as a toast: its name as the title, its message (and first detail) as text. */
export function notifyError(error: unknown) {
  const isApi = error instanceof ApiError;
  const detail = isApi ? detailOf(error) : undefined;
  notifications.show({
    color: 'red',
    title: isApi ? error.name : 'Something went wrong',
    message: `${error instanceof Error ? error.message : String(error)}${detail ? ` ${detail}` : ''}`,
  });
}

export function notifyDone(message: string) {
  notifications.show({ color: 'green', message });
}

export const enc = encodeURIComponent;
