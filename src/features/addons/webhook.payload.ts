import Mustache from 'mustache';
import type { DeliveredEvent } from './addons.schemas.js';

export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** What the delivery record shows of the request (never the URL or header values). */
  details: Record<string, unknown>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * `customHeaders`: a JSON object whose values are strings, or nothing. Answers the headers, or
 * the reason they cannot be used.
 */
export function parseCustomHeaders(value: unknown): Record<string, string> | string {
  const raw = text(value).trim();
  if (raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'customHeaders must be a JSON object, such as {"X-Api-Key": "secret"}.';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return 'customHeaders must be a JSON object of header names to string values.';
  for (const [name, v] of Object.entries(parsed)) {
    if (typeof v !== 'string') return `customHeaders: the value of "${name}" must be a string.`;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return `customHeaders: "${name}" is not a header name.`;
  }
  return parsed as Record<string, string>;
}

/**
 * The webhook's request for an event, as Unleash sends it: the event as JSON, or the body
 * template rendered by Mustache with `{ event }` (so `{{event.type}}`, `{{event.data.name}}`;
 * `{{…}}` HTML-escapes as Mustache does, `{{{…}}}` does not). Content-Type defaults to JSON;
 * `authorization` and `customHeaders` are added when set.
 */
export function webhookRequest(event: DeliveredEvent, parameters: Record<string, unknown>): OutgoingRequest {
  const template = text(parameters.bodyTemplate);
  const body = template.length > 1 ? Mustache.render(template, { event }) : JSON.stringify(event);
  const contentType = text(parameters.contentType).trim() || 'application/json';
  const custom = parseCustomHeaders(parameters.customHeaders);
  const authorization = text(parameters.authorization).trim();
  return {
    url: text(parameters.url),
    headers: {
      'content-type': contentType,
      ...(authorization !== '' && { authorization }),
      // Validated when the addon was saved; a stored value that no longer parses adds nothing.
      ...(typeof custom === 'object' &&
        Object.fromEntries(Object.entries(custom).map(([name, v]) => [name.toLowerCase(), v]))),
    },
    body,
    details: { contentType, body },
  };
}
