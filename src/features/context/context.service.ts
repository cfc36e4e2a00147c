import type { Deps } from '../../deps.js';
import { transaction } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { invalidField, nameExists, notFound } from '../../platform/http/errors.js';
import { appendEvent } from '../events/index.js';
import type { ContextField, CreateContextFieldInput, UpdateContextFieldInput } from './context.schemas.js';
import * as store from './context.store.js';

function toApi(r: store.ContextRow): ContextField {
  return {
    name: r.name,
    description: r.description,
    stickiness: r.stickiness,
    sortOrder: r.sortOrder,
    createdAt: r.createdAt.toISOString(),
    usedInFeatures: r.usedInFeatures,
    usedInProjects: r.usedInProjects,
    legalValues: r.legalValues,
    ...(r.project !== null && { project: r.project }),
  };
}

/** What events record: the field's own settings, without the computed usage. */
const eventData = (f: store.ContextValues) => ({
  name: f.name,
  description: f.description,
  stickiness: f.stickiness,
  sortOrder: f.sortOrder,
  legalValues: f.legalValues,
  project: f.project,
});

function cleanLegalValues(values: { value: string; description?: string }[]) {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (seen.has(v.value))
      invalidFieldThrow(`/body/legalValues/${i}/value`, `The legal value "${v.value}" appears twice.`);
    seen.add(v.value);
  });
  return values.map((v) => ({
    value: v.value,
    ...(v.description !== undefined && { description: v.description }),
  }));
}
function invalidFieldThrow(path: string, message: string): never {
  throw invalidField(path, message);
}

const unknownField = (name: string) => notFound(`Could not find context field "${name}".`);

/**
 * A project scope (`/api/admin/projects/:projectId/context…`) sees only the fields of that
 * project: any other field is unknown there (404), as in Unleash.
 */
function inScope<T extends { project: string | null }>(row: T | undefined, name: string, scope?: string): T {
  if (!row || (scope !== undefined && row.project !== scope)) throw unknownField(name);
  return row;
}

/** Every field, or a project's own fields; `withRoot` adds the root fields to a project's. */
export async function listContextFields(deps: Deps, scope?: string, withRoot = false) {
  const rows = await store.listContextFields(deps.database.db);
  return rows
    .filter((r) => scope === undefined || r.project === scope || (withRoot && r.project == null))
    .map(toApi);
}

export async function getContextField(deps: Deps, name: string, scope?: string) {
  const [row] = await store.listContextFields(deps.database.db, name);
  return toApi(inScope(row, name, scope));
}

export async function validateName(deps: Deps, name: string) {
  if (await store.contextFieldExists(deps.database.db, name)) {
    throw nameExists(`A context field with the name "${name}" already exists.`);
  }
}

export async function createContextField(
  deps: Deps,
  input: CreateContextFieldInput,
  by: Principal,
  scope?: string,
) {
  if (scope !== undefined && input.project != null && input.project !== scope)
    throw invalidField('/body/project', `A field created in project "${scope}" belongs to it.`);
  const values: store.ContextValues = {
    name: input.name,
    description: input.description ?? null,
    stickiness: input.stickiness ?? false,
    sortOrder: input.sortOrder ?? 10,
    legalValues: cleanLegalValues(input.legalValues ?? []),
    project: scope ?? input.project ?? null,
  };
  return transaction(deps.database.db, async (tx) => {
    if (!(await store.insertContextField(tx, values))) {
      throw nameExists(`A context field with the name "${input.name}" already exists.`);
    }
    await appendEvent(tx, {
      type: 'context-field-created',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: eventData(values),
    });
    const [row] = await store.listContextFields(tx, input.name);
    return toApi(row as store.ContextRow);
  });
}

/** Partial update: absent keeps, null clears (description, project). */
export async function updateContextField(
  deps: Deps,
  name: string,
  input: UpdateContextFieldInput,
  by: Principal,
  scope?: string,
) {
  if (scope !== undefined && input.project !== undefined && input.project !== scope)
    throw invalidField(
      '/body/project',
      `The field stays in project "${scope}"; change it through /api/admin/context.`,
    );
  const legalValues = input.legalValues && cleanLegalValues(input.legalValues);
  await transaction(deps.database.db, async (tx) => {
    const [found] = await store.listContextFields(tx, name, true);
    const before = inScope(found, name, scope);
    const after: store.ContextValues = {
      ...before,
      ...(input.description !== undefined && { description: input.description }),
      ...(input.stickiness !== undefined && { stickiness: input.stickiness }),
      ...(input.sortOrder !== undefined && { sortOrder: input.sortOrder }),
      ...(legalValues !== undefined && { legalValues }),
      ...(input.project !== undefined && { project: input.project }),
    };
    await store.updateContextField(tx, after);
    await appendEvent(tx, {
      type: 'context-field-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: eventData(after),
      preData: eventData(before),
    });
  });
}

/** Any field may be deleted, built-in ones too, as in Unleash; constraints that name it stay. */
export async function deleteContextField(deps: Deps, name: string, by: Principal, scope?: string) {
  await transaction(deps.database.db, async (tx) => {
    const [found] = await store.listContextFields(tx, name, true);
    const before = inScope(found, name, scope);
    if (!(await store.deleteContextField(tx, name))) throw unknownField(name);
    await appendEvent(tx, {
      type: 'context-field-deleted',
      createdBy: by.name,
      createdByUserId: by.userId,
      preData: eventData(before),
    });
  });
}

/**
 * Adds a legal value to the field, or changes the description of one it has; the field keeps its
 * other values. Records `context-field-updated` when anything changed.
 */
export async function upsertLegalValue(
  deps: Deps,
  name: string,
  value: { value: string; description?: string },
  by: Principal,
  scope?: string,
) {
  await changeLegalValues(deps, name, by, scope, (values) => {
    const at = values.findIndex((v) => v.value === value.value);
    const next = {
      value: value.value,
      ...(value.description !== undefined && { description: value.description }),
    };
    return at < 0 ? [...values, next] : values.map((v, i) => (i === at ? next : v));
  });
}

/** Removes one legal value (nothing happens when the field does not have it); constraints keep it. */
export async function deleteLegalValue(
  deps: Deps,
  name: string,
  value: string,
  by: Principal,
  scope?: string,
) {
  await changeLegalValues(deps, name, by, scope, (values) => values.filter((v) => v.value !== value));
}

async function changeLegalValues(
  deps: Deps,
  name: string,
  by: Principal,
  scope: string | undefined,
  change: (values: store.ContextValues['legalValues']) => store.ContextValues['legalValues'],
) {
  await transaction(deps.database.db, async (tx) => {
    const [found] = await store.listContextFields(tx, name, true);
    const before = inScope(found, name, scope);
    const after: store.ContextValues = { ...before, legalValues: change(before.legalValues) };
    await store.updateContextField(tx, after);
    // appendEvent records nothing when data equals preData: an unchanged list leaves no trace.
    await appendEvent(tx, {
      type: 'context-field-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      data: eventData(after),
      preData: eventData(before),
    });
  });
}

/** Globally: every strategy constraining on the field. In a project: that project's field and flags. */
export async function getStrategiesUsingField(deps: Deps, name: string, scope?: string) {
  const db = deps.database.db;
  if (scope !== undefined) {
    const [row] = await store.listContextFields(db, name);
    inScope(row, name, scope);
  }
  const all = await store.strategiesUsingField(db, name);
  return { strategies: scope === undefined ? all : all.filter((s) => s.projectId === scope) };
}
