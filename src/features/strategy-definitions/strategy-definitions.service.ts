import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { AppError, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import type {
  CreateStrategyInput,
  StrategyDefinition,
  UpdateStrategyInput,
} from './strategy-definitions.schemas.js';
import * as store from './strategy-definitions.store.js';

function toApi(s: store.StrategyRow): StrategyDefinition {
  return {
    title: s.title,
    name: s.name,
    displayName: s.title,
    description: s.description,
    editable: !s.builtIn,
    deprecated: s.deprecated,
    parameters: s.parameters,
  };
}

const cleanParameters = (params: CreateStrategyInput['parameters']) =>
  params.map((p) => ({
    name: p.name,
    type: p.type,
    description: p.description ?? '',
    required: p.required ?? false,
  }));

const who = (by: Principal) => ({ createdBy: by.name, createdByUserId: by.userId });

export async function listStrategies(deps: Deps) {
  return { version: 1, strategies: (await store.listStrategies(deps.database.db)).map(toApi) };
}

export async function getStrategy(deps: Deps, name: string) {
  const s = await store.findStrategy(deps.database.db, name);
  if (!s) throw notFound(`Could not find strategy "${name}".`);
  return toApi(s);
}

export async function createStrategy(deps: Deps, input: CreateStrategyInput, by: Principal) {
  return transaction(deps.database.db, async (tx) => {
    const created = await store.insertStrategy(tx, {
      name: input.name,
      title: input.title ?? null,
      description: input.description ?? null,
      parameters: cleanParameters(input.parameters),
      builtIn: false,
      deprecated: false,
    });
    if (!created) throw nameExists(`A strategy with the name "${input.name}" already exists.`);
    const out = toApi(created);
    await appendEvent(tx, { type: 'strategy-created', ...who(by), data: out });
    return out;
  });
}

/** Loads a strategy for a change; built-in strategies cannot be changed or deleted (403, as Unleash). */
async function editable(tx: Parameters<typeof store.findStrategy>[0], name: string) {
  const s = await store.findStrategy(tx, name, true);
  if (!s) throw notFound(`Could not find strategy "${name}".`);
  if (s.builtIn)
    throw new AppError('InvalidOperationError', `The built-in strategy "${name}" cannot be changed.`);
  return s;
}

export async function updateStrategy(deps: Deps, name: string, input: UpdateStrategyInput, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await editable(tx, name);
    const after: store.StrategyRow = {
      ...before,
      ...(input.title !== undefined && { title: input.title }),
      ...(input.description !== undefined && { description: input.description }),
      parameters: cleanParameters(input.parameters),
    };
    await store.updateStrategy(tx, after);
    await appendEvent(tx, {
      type: 'strategy-updated',
      ...who(by),
      data: toApi(after),
      preData: toApi(before),
    });
  });
}

/** Refuses a strategy still used by a flag (400), since the flag would lose its meaning. */
export async function deleteStrategy(deps: Deps, name: string, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await editable(tx, name);
    if (await store.strategyInUse(tx, name)) {
      throw new AppError(
        'ValidationError',
        `The strategy "${name}" is used by at least one flag and cannot be deleted.`,
        [{ path: '/params/name', message: 'The strategy is in use.' }],
      );
    }
    await store.deleteStrategy(tx, name);
    await appendEvent(tx, { type: 'strategy-deleted', ...who(by), preData: toApi(before) });
  });
}

/** Deprecate/reactivate; built-in strategies may be deprecated too (as Unleash allows). */
export async function setDeprecated(deps: Deps, name: string, deprecated: boolean, by: Principal) {
  await transaction(deps.database.db, async (tx) => {
    const before = await store.findStrategy(tx, name, true);
    if (!before) throw notFound(`Could not find strategy "${name}".`);
    const after = { ...before, deprecated };
    await store.updateStrategy(tx, after);
    await appendEvent(tx, {
      type: deprecated ? 'strategy-deprecated' : 'strategy-reactivated',
      ...who(by),
      data: toApi(after),
      preData: toApi(before),
    });
  });
}
