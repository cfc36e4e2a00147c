import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { appendEvent, readsWholeLog } from '../events/index.js';
import { PROVIDERS } from './addons.providers.js';
import type { Addon, AddonInput, IntegrationEvent } from './addons.schemas.js';
import * as store from './addons.store.js';
import {
  checkEvents,
  checkParameters,
  checkTargets,
  knownProvider,
  maskParameters,
} from './addons.validate.js';

function toApi(row: store.AddonRow): Addon {
  return {
    id: row.id,
    provider: row.provider,
    description: row.description,
    enabled: row.enabled,
    parameters: maskParameters(row.provider, row.parameters),
    events: row.events,
    projects: row.projects,
    environments: row.environments,
  };
}

/** What events record: the addon as the API shows it, sensitive parameters masked. */
const eventData = (row: store.AddonRow) => toApi(row);

/** Unleash ids are integers; anything else names no addon (404, as Unleash). */
function addonId(id: string): number {
  const n = /^[0-9]{1,9}$/.test(id) ? Number(id) : 0;
  if (n < 1) throw unknownAddon(id);
  return n;
}
const unknownAddon = (id: string | number) => notFound(`Could not find the addon with ID "${id}".`);

async function existing(db: Deps['database']['db'], id: string, lock = false) {
  const row = await store.findAddon(db, addonId(id), lock);
  if (!row) throw unknownAddon(id);
  return row;
}

export async function listAddons(deps: Deps) {
  const rows = await store.listAddons(deps.database.db);
  return { addons: rows.map(toApi), providers: [...PROVIDERS] };
}

export async function getAddon(deps: Deps, id: string) {
  return toApi(await existing(deps.database.db, id));
}

/**
 * The values to store from a body; `before` supplies what the body leaves out (and masked
 * secrets). `by` may subscribe only to events it may read (400 otherwise).
 */
function values(input: AddonInput, by: Principal, before?: store.AddonRow): store.AddonValues {
  const provider = knownProvider(input.provider);
  const stored = before?.provider === input.provider ? before.parameters : {};
  checkEvents(provider, input.events, by);
  return {
    provider: input.provider,
    description: input.description === undefined ? (before?.description ?? null) : (input.description ?? ''),
    enabled: input.enabled,
    parameters: checkParameters(provider, input.parameters, stored),
    events: input.events,
    projects: input.projects === undefined ? (before?.projects ?? []) : (input.projects ?? []),
    environments:
      input.environments === undefined ? (before?.environments ?? []) : (input.environments ?? []),
  };
}

/** The URLs the values would call are allowed (names are resolved: before any transaction). */
const checkCalls = (deps: Deps, row: store.AddonValues) =>
  checkTargets(knownProvider(row.provider), row.parameters, deps.config.OUTGOING_ALLOWED_HOSTS);

export async function createAddon(deps: Deps, input: AddonInput, by: Principal) {
  const row = values(input, by);
  await checkCalls(deps, row);
  return transaction(deps.database.db, async (tx) => {
    const created = await store.insertAddon(tx, row, by.userId);
    await appendEvent(tx, {
      type: 'addon-config-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: eventData(created),
    });
    return toApi(created);
  });
}

/**
 * Replaces the addon's settings. As Unleash: `description`, `projects` and `environments` left
 * out keep their values (null empties them), and a sensitive parameter sent as `*****` is kept.
 */
export async function updateAddon(deps: Deps, id: string, input: AddonInput, by: Principal) {
  // Checked on the stored values as read now, outside the transaction (resolving a name takes up
  // to seconds). A secret kept as `*****` that changes meanwhile was itself checked when saved,
  // and every delivery checks its target again.
  await checkCalls(deps, values(input, by, await existing(deps.database.db, id)));
  return transaction(deps.database.db, async (tx) => {
    const before = await existing(tx, id, true);
    const after = await store.updateAddon(tx, before.id, values(input, by, before), by.userId);
    await appendEvent(tx, {
      type: 'addon-config-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: eventData(after),
      preData: eventData(before),
    });
    return toApi(after);
  });
}

export async function deleteAddon(deps: Deps, id: string, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await existing(tx, id, true);
    await store.deleteAddon(tx, before.id);
    await appendEvent(tx, {
      type: 'addon-config-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      preData: eventData(before),
    });
  });
}

/** The addon's delivery records (for those who may update it), newest first; `limit` (default 50, at most 1000) and `offset`. */
export async function listIntegrationEvents(
  deps: Deps,
  id: string,
  query: { limit?: string; offset?: string },
  by: Principal,
): Promise<{ integrationEvents: IntegrationEvent[] }> {
  const addon = await existing(deps.database.db, id);
  const limit = Math.min(Number(query.limit ?? 50), 1000);
  const offset = Number(query.offset ?? 0);
  // A record shows the event as sent: only the events the caller may read (events.auth.ts).
  const onlyFlagEvents = !readsWholeLog(by.grants);
  const rows = await store.listIntegrationEvents(deps.database.db, addon.id, {
    limit,
    offset,
    onlyFlagEvents,
  });
  return {
    integrationEvents: rows.map((r) => ({
      id: String(r.id),
      integrationId: r.integration_id,
      createdAt: r.created_at.toISOString(),
      state: r.state,
      stateDetails: r.state_details,
      event: r.event as IntegrationEvent['event'],
      details: r.details,
    })),
  };
}
