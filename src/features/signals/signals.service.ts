import { randomBytes } from 'node:crypto';
import { publicUrl } from '../../config.js';
import type { Deps } from '../../deps.js';
import { type Db, transaction } from '../../platform/db/index.js';
import { sqlState } from '../../platform/db/pg-errors.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, nameExists, notFound } from '../../platform/http/errors.js';
import { hashSecret } from '../access/index.js';
import { appendEvent } from '../events/index.js';
import { forgetIntakes } from './signals.intake.js';
import type { SignalEndpoint, SignalEndpointInput } from './signals.schemas.js';
import {
  deleteEndpoint,
  deleteToken,
  endpointSignals,
  findEndpoint,
  insertEndpoint,
  insertToken,
  listEndpoints,
  querySignals,
  renameToken,
  updateEndpoint,
} from './signals.store.js';

/**
 * Signal endpoints (`/api/admin/signal-endpoints`), as Unleash Enterprise has them, and the intake
 * external systems post to (`POST /api/signal-endpoint/:name`). Decisions:
 * - Every admin operation needs ADMIN, as in Unleash's web UI.
 * - Tokens are 64 hex characters, stored as SHA-256, shown once. The intake answers 401 to any
 *   request without a token of that endpoint (an unknown name too: names are not revealed), 403
 *   when the endpoint is disabled, 202 when the signal is stored; nothing is stored otherwise.
 * - Events `signal-endpoint-created|updated|deleted` carry the endpoint without tokens,
 *   `signal-endpoint-token-created|updated|deleted` the token without its secret.
 * - An endpoint that action sets use cannot be deleted (409); its signals go with it.
 */

const unknownEndpoint = (id: number) => notFound(`Could not find signal endpoint with id ${id}.`);

async function record(tx: Db, type: string, by: Principal, data?: unknown, preData?: unknown) {
  await appendEvent(tx, {
    type,
    createdBy: by.name,
    createdByUserId: by.userId,
    ...(data !== undefined && { data }),
    ...(preData !== undefined && { preData }),
  });
}

const withoutTokens = ({ tokens: _, url: __, ...endpoint }: SignalEndpoint) => endpoint;
const withUrl = (deps: Deps, endpoint: SignalEndpoint): SignalEndpoint => ({
  ...endpoint,
  url: `${publicUrl(deps.config)}/api/signal-endpoint/${endpoint.name}`,
});

/** A change of endpoints or tokens: once it has committed (or failed), the intake's cache of them goes. */
async function changing<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    forgetIntakes();
  }
}

async function uniqueName<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await changing(run);
  } catch (error) {
    if (sqlState(error) === '23505') throw nameExists(`A signal endpoint named "${name}" already exists.`);
    throw error;
  }
}

async function locked(tx: Db, id: number) {
  const endpoint = await findEndpoint(tx, id, true);
  if (!endpoint) throw unknownEndpoint(id);
  return endpoint;
}

export const getEndpoints = async (deps: Deps) => ({
  signalEndpoints: await listEndpoints(deps.database.db),
});

export async function getEndpoint(deps: Deps, id: number) {
  const endpoint = await findEndpoint(deps.database.db, id);
  if (!endpoint) throw unknownEndpoint(id);
  return endpoint;
}

export function createEndpoint(deps: Deps, input: SignalEndpointInput, by: Principal) {
  return uniqueName(input.name, () =>
    transaction(deps.database.db, async (tx) => {
      const endpoint = await insertEndpoint(tx, input, by.userId > 0 ? by.userId : null, deps.now());
      await record(tx, 'signal-endpoint-created', by, withoutTokens(endpoint));
      return withUrl(deps, endpoint);
    }),
  );
}

/** Replaces its settings (`enabled` included), or with on/off only `enabled`. */
export function changeEndpoint(
  deps: Deps,
  id: number,
  change: SignalEndpointInput | { enabled: boolean },
  by: Principal,
) {
  return uniqueName('name' in change ? change.name : '', () =>
    transaction(deps.database.db, async (tx) => {
      const before = await locked(tx, id);
      await updateEndpoint(tx, id, change);
      const after = await locked(tx, id);
      await record(tx, 'signal-endpoint-updated', by, withoutTokens(after), withoutTokens(before));
      return withUrl(deps, after);
    }),
  );
}

export async function removeEndpoint(deps: Deps, id: number, by: Principal) {
  await changing(() =>
    transaction(deps.database.db, async (tx) => {
      const before = await locked(tx, id);
      try {
        await deleteEndpoint(tx, id);
      } catch (error) {
        // The action sets that take their signals from it hold it (a foreign key of theirs).
        if (sqlState(error) !== '23503') throw error;
        throw new AppError(
          'ConflictError',
          `Signal endpoint "${before.name}" is the source of action sets: delete them or give them another source first.`,
        );
      }
      await record(tx, 'signal-endpoint-deleted', by, undefined, withoutTokens(before));
    }),
  );
}

export async function getTokens(deps: Deps, id: number) {
  return { signalEndpointTokens: (await getEndpoint(deps, id)).tokens };
}

export function createToken(deps: Deps, id: number, name: string, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    await locked(tx, id);
    const secret = randomBytes(32).toString('hex');
    const token = await insertToken(
      tx,
      id,
      name,
      hashSecret(secret),
      by.userId > 0 ? by.userId : null,
      deps.now(),
    );
    await record(tx, 'signal-endpoint-token-created', by, token);
    return { ...token, token: secret };
  });
}

export function changeToken(deps: Deps, id: number, tokenId: number, name: string, by: Principal) {
  return changing(() =>
    transaction(deps.database.db, async (tx) => {
      const before = (await locked(tx, id)).tokens.find((t) => t.id === tokenId);
      const after = await renameToken(tx, id, tokenId, name);
      if (!before || !after) throw notFound(`Could not find token ${tokenId} of signal endpoint ${id}.`);
      await record(tx, 'signal-endpoint-token-updated', by, after, before);
      return after;
    }),
  );
}

export function removeToken(deps: Deps, id: number, tokenId: number, by: Principal) {
  return changing(() =>
    transaction(deps.database.db, async (tx) => {
      await locked(tx, id);
      const before = await deleteToken(tx, id, tokenId);
      if (!before) throw notFound(`Could not find token ${tokenId} of signal endpoint ${id}.`);
      await record(tx, 'signal-endpoint-token-deleted', by, undefined, before);
    }),
  );
}

export async function getEndpointSignals(deps: Deps, id: number, limit: number, offset: number) {
  await getEndpoint(deps, id);
  return { signalEndpointSignals: await endpointSignals(deps.database.db, id, limit, offset) };
}

export const getSignals = (deps: Deps, q: Parameters<typeof querySignals>[1]) =>
  querySignals(deps.database.db, q);
