import { Value } from 'typebox/value';
import type { Deps } from '../../deps.js';
import type { Db } from '../../platform/db/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { type ErrorDetail, invalid, notFound } from '../../platform/http/errors.js';
import { applyJsonPatch, PatchError, type PatchOperation } from '../../platform/json-patch.js';
import { appendEvent } from '../events/index.js';
import { archivedFlag, findFlagArchivedState, lockFlag } from '../flag-rows/index.js';
import {
  type FeatureVariants,
  type PatchBodyType,
  type StoredVariant,
  type VariantInputType,
  VariantsBody,
} from './variants.schemas.js';
import { type FlagEnvironmentVariants, listFlagEnvironmentVariants, saveVariants } from './variants.store.js';
import { storedVariant } from './variants.stored.js';
import { fixVariantWeights } from './variants.weights.js';

/**
 * Checks what JSON Schema cannot (unique names, json payloads that parse), keeps only the known
 * fields with their defaults (weightType `variable`, stickiness `default`), then normalises the
 * weights (docs/evaluation.md §9.4). `path` prefixes the field paths of errors.
 */
export function prepareVariants(input: VariantInputType[], path = '/body'): StoredVariant[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  input.forEach((v, i) => {
    if (seen.has(v.name))
      details.push({
        path: `${path}/${i}/name`,
        message: `Variant names must be unique; "${v.name}" appears twice.`,
      });
    seen.add(v.name);
    if (v.payload?.type === 'json') {
      try {
        JSON.parse(v.payload.value);
      } catch {
        details.push({ path: `${path}/${i}/payload/value`, message: 'A json payload must be valid JSON.' });
      }
    }
  });
  if (details.length > 0) throw invalid(details[0]?.message as string, details);
  const clean = input.map((v) => storedVariant(v, true));
  return fixVariantWeights(clean, path);
}

/**
 * Applies the patch, then validates the resulting list as a PUT body would be; the patch may insert
 * at most `bodyLimit` (BODY_LIMIT) of JSON, what a PUT of the list could carry.
 */
export function patchVariants(
  current: StoredVariant[],
  patch: PatchBodyType,
  bodyLimit: number,
): StoredVariant[] {
  let result: unknown;
  try {
    result = applyJsonPatch(current, patch as PatchOperation[], { maxSize: bodyLimit });
  } catch (error) {
    if (error instanceof PatchError) {
      throw invalid(error.message, [{ path: `/body/${error.index}`, message: error.message }]);
    }
    throw error;
  }
  const errors = [...Value.Errors(VariantsBody, result)];
  if (errors.length > 0) {
    const details = errors.map((e) => ({
      path: `/body${e.instancePath}`,
      message: `After the patch, the variant list at "${e.instancePath || '/'}" ${e.message}.`,
    }));
    throw invalid('The patched variants are invalid.', details);
  }
  return prepareVariants(result as VariantInputType[], '/body');
}

/**
 * The flag's variants per environment; `lock` (writes) locks the flag's row first (the lock order)
 * and refuses an archived flag with 400, as strategy writes do.
 */
export async function loadFlag(
  tx: Db,
  projectId: string,
  name: string,
  lock = true,
): Promise<FlagEnvironmentVariants[]> {
  const missing = () => notFound(`There's no feature named "${name}" in project "${projectId}".`);
  if (lock) {
    const flag = await lockFlag(tx, name);
    if (flag?.project !== projectId) throw missing();
    if (flag.archivedAt !== null) throw archivedFlag(name);
  } else if ((await findFlagArchivedState(tx, name))?.project !== projectId) throw missing();
  return listFlagEnvironmentVariants(tx, name, projectId);
}

export function pick(
  envs: FlagEnvironmentVariants[],
  name: string,
  environment: string,
): FlagEnvironmentVariants {
  const env = envs.find((e) => e.environment === environment);
  if (!env)
    throw notFound(
      `The flag "${name}" has no environment "${environment}" (unknown, or not enabled in its project).`,
    );
  return env;
}

export const response = (variants: StoredVariant[]): FeatureVariants => ({ version: 1, variants });

export interface Target {
  projectId: string;
  featureName: string;
}

export async function getEnvironmentVariants(deps: Deps, t: Target, environment: string) {
  const envs = await loadFlag(deps.database.db, t.projectId, t.featureName, false);
  return response(pick(envs, t.featureName, environment).variants);
}

/** One `feature-environment-variants-updated` per environment, as Unleash records it. */
export async function writeEnvironments(
  tx: Db,
  t: Target,
  envs: FlagEnvironmentVariants[],
  next: StoredVariant[],
  by: Principal,
) {
  await saveVariants(
    tx,
    t.featureName,
    envs.map((e) => e.environment),
    next,
  );
  for (const env of envs) {
    await appendEvent(tx, {
      type: 'feature-environment-variants-updated',
      createdBy: by.name,
      createdByUserId: by.userId,
      featureName: t.featureName,
      project: t.projectId,
      environment: env.environment,
      data: { variants: next },
      preData: { variants: env.variants },
    });
  }
}

/** Deprecated flag-level variants: read from the first environment of the flag. */
export async function getFlagVariants(deps: Deps, t: Target) {
  const envs = await loadFlag(deps.database.db, t.projectId, t.featureName, false);
  return response(envs[0]?.variants ?? []);
}
