import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { AppError } from './errors.js';

/**
 * Optimistic concurrency for read-modify-write clients (scripts, the UI): a GET serves an `ETag`,
 * a write that sends it back in `If-Match` succeeds only while the resource still shows what that
 * GET showed; otherwise 412 PreconditionFailedError and nothing changes.
 *
 * The tag is a hash of the resource as the API shows it (canonical JSON: keys sorted, so the order
 * in which a jsonb column or a builder lists them does not matter). A write recomputes it inside
 * its transaction, after the row lock that every writer of the resource takes, so of two writers
 * holding the same tag exactly one passes: the second reads the first one's commit once the lock
 * is free. No column, trigger or migration is needed, every table a view draws on is covered, and
 * a write without `If-Match` pays nothing.
 */
export function etagOf(value: unknown): string {
  const digest = createHash('sha256').update(canonicalJson(value)).digest('base64url');
  return `"${digest.slice(0, 27)}"`;
}

/** JSON with every object's keys sorted; undefined members left out, as JSON.stringify does. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  // Loops rather than entries/filter/sort/map/join: a flag's tag is computed on every write's answer.
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i === 0 ? '' : ','}${canonicalJson(value[i])}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let text = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/** The request headers of a write that honours `If-Match` (for the route's schema). */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 4096,
      description:
        'Optional: the ETag of the resource as last read. When it no longer matches, the write is refused with 412 and nothing changes. `*` matches any current version. Without the header the write is unconditional.',
      examples: ['"3q2-7w8J0yQx0p2Yk6cU1v7Y5Ng"'],
    }),
  ),
});

/** The tags an If-Match header lists (`*` stays `*`); undefined when it is absent or empty. */
function listedTags(header: string | string[] | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  const tags = text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  return tags.length > 0 ? tags : undefined;
}

/**
 * Throws 412 when `ifMatch` is sent and lists neither `*` nor the current tag. `current` is called
 * only when a header is sent, so unconditional writes do not compute the tag. Weak tags never
 * match (If-Match uses the strong comparison, RFC 9110 §13.1.1).
 */
export async function checkIfMatch(
  ifMatch: string | string[] | undefined,
  current: () => unknown | Promise<unknown>,
): Promise<void> {
  const tags = listedTags(ifMatch);
  if (tags === undefined || tags.includes('*')) return;
  const tag = etagOf(await current());
  if (!tags.includes(tag)) throw preconditionFailed();
}

/** Whether an If-Match header makes a write conditional (it lists a tag other than `*`). */
export function isConditional(ifMatch: string | string[] | undefined): boolean {
  const tags = listedTags(ifMatch);
  return tags !== undefined && !tags.includes('*');
}

/** The 412 of a write whose resource changed since the client read it. */
export const preconditionFailed = () =>
  new AppError(
    'PreconditionFailedError',
    'The resource changed since it was read (If-Match does not match its current ETag); read it again and retry.',
  );

/** Sets the ETag of the body about to be sent and returns the body. */
export function withEtag<T>(reply: FastifyReply, body: T): T {
  reply.header('etag', etagOf(body));
  return body;
}
