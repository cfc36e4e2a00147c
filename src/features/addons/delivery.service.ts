import { isDeepStrictEqual } from 'node:util';
import { publicUrl } from '../../config.js';
import type { Deps } from '../../deps.js';
import { JOB_LEASES, transaction, tryJobLease } from '../../platform/db/index.js';
import { repeatEvery } from '../../platform/jobs.js';
import { ALLOW_SETTING, outgoingPolicy } from '../../platform/outgoing.js';
import { sendOutgoing } from '../../platform/outgoing-http.js';
import type { DeliveredEvent } from './addons.schemas.js';
import type { AddonRow } from './addons.store.js';
import { listAddons } from './addons.store.js';
import { eventReaders } from './delivery.auth.js';
import * as store from './delivery.store.js';
import { slackRequests } from './slack.payload.js';
import { type OutgoingRequest, webhookRequest } from './webhook.payload.js';

/**
 * Delivery to integrations (docs/adr/0013). Runs after the changes' commits, never inside them: a
 * round reads the events after a persisted cursor, queues one delivery per (addon, event) that
 * the addon's filters accept, claims the due ones, sends them outside any transaction and records
 * each attempt's outcome. Of several instances one queues and claims at a time (a lease), and a
 * claimed delivery is theirs until the claim expires, so an event is sent once unless an instance
 * dies mid-send (then again after the claim: at least once).
 */
export interface DeliveryOptions {
  /** The pause before the second attempt; it doubles for each further one. */
  backoffMs?: number;
  /** Attempts per delivery, the first included. */
  maxAttempts?: number;
  /** How long one HTTP request may take. */
  timeoutMs?: number;
  /** Deliveries claimed per round. */
  batch?: number;
  /** Aborts the requests in flight (shutdown); their deliveries are released for a later round. */
  signal?: AbortSignal;
}

const DEFAULTS: Required<Omit<DeliveryOptions, 'signal'>> = {
  backoffMs: 1000,
  maxAttempts: 5,
  timeoutMs: 10_000,
  batch: 50,
};

/** Events read per round; more wait for the next round. */
const EVENTS_PER_ROUND = 1000;
/** How long an event id missing below the cursor is waited for (its transaction may still commit). */
const GAP_WAIT_MS = 60_000;
/** Missing ids remembered at most (the newest). */
const GAPS_KEPT = 1000;
/** Requests in flight at once per instance. */
const PARALLEL = 8;

/** Unleash's rule: an empty list, or `*` first, means every project (environment). */
const accepts = (list: string[], value: string | null) =>
  value === null || list.length === 0 || list[0] === '*' || list.includes(value);

export function addonWants(addon: AddonRow, event: store.EventHead): boolean {
  return (
    event.created_at >= addon.created_at &&
    addon.events.includes(event.type) &&
    accepts(addon.projects, event.project) &&
    accepts(addon.environments, event.environment)
  );
}

/** Moves the cursor over the events committed since the last round and queues their deliveries. */
async function enqueueNewEvents(tx: Deps['database']['db'], now: Date): Promise<number> {
  const cursor = await store.readCursor(tx);
  const { fresh, found, pending } = await store.eventHeads(
    tx,
    cursor.lastEventId,
    EVENTS_PER_ROUND,
    cursor.gaps.map((g) => g.id),
    cursor.pending,
  );
  const last = fresh.at(-1)?.id ?? cursor.lastEventId;
  const seen = new Set([...fresh, ...found].map((e) => e.id));
  const kept = cursor.gaps.filter(
    (g) => !seen.has(g.id) && now.getTime() - Date.parse(g.seenAt) < GAP_WAIT_MS,
  );
  const missed: { id: number; seenAt: string }[] = [];
  for (let id = Math.max(cursor.lastEventId + 1, last - GAPS_KEPT); id < last; id++) {
    if (!seen.has(id)) missed.push({ id, seenAt: now.toISOString() });
  }
  const gaps = [...kept, ...missed].slice(-GAPS_KEPT);
  // An idle round writes nothing.
  const moved = last !== cursor.lastEventId || gaps.length !== cursor.gaps.length;
  if (moved || !isDeepStrictEqual(pending, cursor.pending))
    await store.writeCursor(tx, { lastEventId: last, gaps, pending });

  const events = [...found, ...fresh];
  if (events.length === 0) return 0;
  const addons = await listAddons(tx, true);
  const readers = await eventReaders(tx, addons);
  const rows = events.flatMap((event) =>
    addons
      .filter((a) => addonWants(a, event) && readers.get(a.id)?.({ featureName: event.feature_name }))
      .map((a) => ({ addonId: a.id, eventId: event.id })),
  );
  await store.enqueue(tx, rows, now);
  return rows.length;
}

interface Attempt {
  state: 'success' | 'failed' | 'successWithErrors';
  stateDetails: string;
  details: Record<string, unknown>;
  /** Whether another attempt may succeed (network errors, 429, 5xx). */
  retryable: boolean;
}

/** The delivery of a request the policy refuses (platform/outgoing.ts); it is not retried. */
const REFUSED = 'refused by policy';

async function post(
  deps: Pick<Deps, 'config'>,
  request: OutgoingRequest,
  timeoutMs: number,
  stop: AbortSignal | undefined,
): Promise<{ status?: number; error?: string; refused?: true }> {
  const policy = outgoingPolicy(deps.config.OUTGOING_ALLOWED_HOSTS);
  return sendOutgoing(policy, request.url, {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    timeoutMs,
    ...(stop && { signal: stop }),
  });
}

const ok = (r: { status?: number }) => r.status !== undefined && r.status >= 200 && r.status < 300;
const retryable = (r: { status?: number; refused?: true }) =>
  !r.refused && (r.status === undefined || r.status === 429 || r.status >= 500);

async function attempt(
  deps: Pick<Deps, 'config'>,
  addon: AddonRow,
  event: DeliveredEvent,
  timeoutMs: number,
  stop: AbortSignal | undefined,
): Promise<Attempt> {
  const label = addon.provider === 'slack' ? 'Slack' : 'Webhook';
  const flagUrl =
    event.featureName && event.project
      ? `${publicUrl(deps.config)}/projects/${encodeURIComponent(event.project)}/features/${encodeURIComponent(event.featureName)}`
      : undefined;
  const requests =
    addon.provider === 'slack'
      ? slackRequests(event, addon.parameters, flagUrl)
      : [webhookRequest(event, addon.parameters)];
  const results = await Promise.all(requests.map((r) => post(deps, r, timeoutMs, stop)));
  // A refusal says nothing of the network (no error code, no status): it would map internal ports.
  if (results.some((r) => r.refused))
    return {
      state: 'failed',
      stateDetails: `${label} request ${REFUSED}: the URL's host is a loopback, private or otherwise internal address, and ${ALLOW_SETTING} does not allow it.`,
      details: { ...requests[0]?.details, responses: [REFUSED] },
      retryable: false,
    };
  const describe = (r: { status?: number; error?: string }) =>
    r.status !== undefined ? `status code: ${r.status}` : `error: ${r.error}`;
  // Every request of one event carries the same details (the Slack message and its channels).
  const details = { ...requests[0]?.details, responses: results.map(describe) };
  if (results.every(ok))
    return {
      state: 'success',
      stateDetails: `${label} request was successful with ${describe(results[0] ?? {})}.`,
      details,
      retryable: false,
    };
  const failed = results.filter((r) => !ok(r));
  const some = failed.length < results.length;
  return {
    state: some ? 'successWithErrors' : 'failed',
    stateDetails: `${label} request failed with ${describe(failed[0] ?? {})}.`,
    details,
    // A partly delivered Slack message is not sent again (the channels that got it would get it twice).
    retryable: !some && failed.some(retryable),
  };
}

export interface RoundResult {
  /** Deliveries queued from new events. */
  queued: number;
  /** Delivery attempts made. */
  attempted: number;
}

/**
 * One round: queue the deliveries of newly committed events, then make the due attempts. Skips
 * (answers zeros) when another instance holds the round's lease.
 */
export async function deliverPending(
  deps: Pick<Deps, 'database' | 'config' | 'now'>,
  options: DeliveryOptions = {},
): Promise<RoundResult> {
  const o = { ...DEFAULTS, ...options };
  const db = deps.database.db;
  const now = deps.now();
  // The claim lasts as long as the slowest batch could take, then another instance may retry it.
  const until = new Date(now.getTime() + o.timeoutMs * Math.ceil(o.batch / PARALLEL) + 30_000);
  const round = await transaction(db, async (tx) => {
    if (!(await tryJobLease(tx, JOB_LEASES.addonDelivery))) return undefined;
    const queued = await enqueueNewEvents(tx, now);
    return { queued, claimed: await store.claimDue(tx, now, until, o.batch) };
  });
  if (!round) return { queued: 0, attempted: 0 };
  const { claimed } = round;
  const addons = await store.loadAddons(db, [...new Set(claimed.map((c) => c.addonId))]);
  const events = await store.loadEvents(db, [...new Set(claimed.map((c) => c.eventId))]);
  // Checked again as it is sent: the users who chose the addon's settings may have lost rights.
  const readers = await eventReaders(db, addons.values());
  let next = 0;
  const worker = async () => {
    while (next < claimed.length) {
      if (options.signal?.aborted) {
        await store.releaseClaim(db, (claimed[next++] as store.Claimed).id);
        continue;
      }
      const delivery = claimed[next++] as store.Claimed;
      const addon = addons.get(delivery.addonId);
      const event = events.get(delivery.eventId);
      // Disabled or deleted since it was queued, the event is gone, or its owners may no longer
      // read it: nothing to send (and nothing recorded, which would show the event).
      if (!addon?.enabled || !event || !readers.get(addon.id)?.(event)) {
        await store.dropDelivery(db, delivery.id);
        continue;
      }
      const result = await attempt(deps, addon, event, o.timeoutMs, options.signal);
      // Shutting down: this attempt does not count; the delivery is due again at once.
      if (options.signal?.aborted) {
        await store.releaseClaim(db, delivery.id);
        continue;
      }
      const again = result.retryable && delivery.attempt < o.maxAttempts;
      const wait = o.backoffMs * 2 ** (delivery.attempt - 1);
      const stateDetails = again
        ? `${result.stateDetails} Attempt ${delivery.attempt} of ${o.maxAttempts}; retrying in ${wait} ms.`
        : result.stateDetails;
      await transaction(db, (tx) =>
        store.recordAttempt(
          tx,
          delivery,
          { state: result.state, state_details: stateDetails, details: result.details, event },
          again ? new Date(deps.now().getTime() + wait) : undefined,
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, claimed.length) }, worker));
  return { queued: round.queued, attempted: claimed.length };
}

/**
 * Runs a round every `intervalMs` until the returned function is called, which aborts the
 * requests in flight (their deliveries go back to the queue) and resolves when the round is over.
 */
export function startDeliveryWorker(
  deps: Pick<Deps, 'database' | 'config' | 'now'>,
  intervalMs: number,
  log: { error: (obj: unknown, msg: string) => void },
  options: DeliveryOptions = {},
): () => Promise<void> {
  return repeatEvery(
    intervalMs,
    (signal) => deliverPending(deps, { ...options, signal }),
    log,
    'integration delivery round',
    false,
  );
}
