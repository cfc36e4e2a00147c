import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkUrl, guardedLookup, type OutgoingPolicy, REFUSED_CODE } from './outgoing.js';

/**
 * The outcome of one outgoing request: the answer's status, a network error (its code), or
 * `refused` when the policy (platform/outgoing.ts) forbids the target. A refusal carries no
 * network detail: which ports answer on an internal host is not for the user to learn.
 */
export type OutgoingResult = { status: number } | { error: string } | { refused: true };

export interface OutgoingRequestInit {
  method: string;
  headers: Record<string, string>;
  body: string;
  /** How long the whole exchange may take. */
  timeoutMs: number;
  /** Aborts the request (shutdown). */
  signal?: AbortSignal;
}

/**
 * Sends one request where the policy allows: the URL is checked (scheme, address literals) and
 * every address the name resolves to is checked as the socket connects (guardedLookup).
 * Redirects are never followed (the answer's status is the outcome).
 */
export function sendOutgoing(
  policy: OutgoingPolicy,
  target: string,
  init: OutgoingRequestInit,
): Promise<OutgoingResult> {
  const verdict = checkUrl(policy, target);
  if (!verdict.ok) return Promise.resolve({ refused: true });
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
  const send = verdict.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const fail = (error: NodeJS.ErrnoException) => {
      if (error.code === REFUSED_CODE) resolve({ refused: true });
      else if (timeout.aborted) resolve({ error: `no answer within ${init.timeoutMs} ms` });
      else resolve({ error: error.code ?? error.message });
    };
    try {
      const req = send(
        verdict.url,
        {
          method: init.method,
          headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
          lookup: guardedLookup(policy),
          signal,
        },
        (res) => {
          // The answer's body is not used; it is read to the end (or until the signal) and dropped.
          const done = () => resolve({ status: res.statusCode ?? 0 });
          res.resume();
          res.on('end', done);
          res.on('close', done);
          res.on('error', done);
        },
      );
      req.on('error', fail);
      req.end(init.body);
    } catch (error) {
      // Header names or values node:http refuses (checked when saved; a stored one may predate that).
      resolve({ error: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
    }
  });
}
