import type { Db } from '../../platform/db/index.js';
import { type ErrorDetail, invalid } from '../../platform/http/errors.js';
import type { CreateStrategyInput, StrategyVariantInput } from '../shapes/index.js';
import { normaliseVariantWeights, storedVariant, variantWeightProblems } from '../variants/index.js';
import { constraintsProblems, storedConstraint } from './constraints.validate.js';
import { rolloutProblems } from './rollout.validate.js';
import { existingSegmentIds, type StrategyRow, strategyTypeExists } from './strategies.store.js';

/** A complete strategy as the caller wants it stored (after merging an update onto the old one). */
export type StrategyDraft = Omit<StrategyRow, 'id' | 'featureName' | 'environment'>;

export interface DraftContext {
  flag: string;
  defaultStickiness: string;
}

/**
 * Fills what Unleash fills for a `flexibleRollout`: a blank groupId becomes the flag name and a
 * blank stickiness the project's default stickiness.
 */
function completeParameters(name: string, parameters: Record<string, string>, ctx: DraftContext) {
  if (name !== 'flexibleRollout') return parameters;
  return {
    ...parameters,
    groupId: parameters.groupId?.trim() ? parameters.groupId : ctx.flag,
    stickiness: parameters.stickiness?.trim() ? parameters.stickiness : ctx.defaultStickiness,
  };
}

function payloadProblems(variants: StrategyVariantInput[], base: string): ErrorDetail[] {
  return variants.flatMap((v, i) => {
    if (v.payload?.type === 'json') {
      try {
        JSON.parse(v.payload.value);
      } catch {
        return [{ path: `${base}/${i}/payload/value`, message: 'A json payload must be valid JSON.' }];
      }
    }
    if (
      v.payload?.type === 'number' &&
      (v.payload.value.trim() === '' || Number.isNaN(Number(v.payload.value)))
    ) {
      return [{ path: `${base}/${i}/payload/value`, message: 'A number payload must be a number.' }];
    }
    return [];
  });
}

/**
 * Checks a draft against the rules a JSON schema cannot state (defined strategy type, rollout
 * percentage, constraint values, variant weights, existing segments) and returns it as stored: constraints with their
 * known properties, variant weights normalised, segments deduplicated. One 400 lists every problem.
 */
export async function finishDraft(
  db: Db,
  input: CreateStrategyInput,
  ctx: DraftContext,
  sortOrder: number,
  base = '/body',
): Promise<StrategyDraft> {
  const problems: ErrorDetail[] = [];
  if (!(await strategyTypeExists(db, input.name))) {
    problems.push({ path: `${base}/name`, message: `There is no strategy type named "${input.name}".` });
  }
  problems.push(...rolloutProblems(input.name, input.parameters, base));
  problems.push(...constraintsProblems(input.constraints, `${base}/constraints`));
  const variants = (input.variants ?? []) as StrategyVariantInput[];
  problems.push(
    ...variantWeightProblems(variants, `${base}/variants`),
    ...payloadProblems(variants, `${base}/variants`),
  );
  const segments = [...new Set(input.segments ?? [])];
  const known = await existingSegmentIds(db, segments);
  (input.segments ?? []).forEach((id, i) => {
    if (!known.has(id))
      problems.push({ path: `${base}/segments/${i}`, message: `There is no segment with id ${id}.` });
  });
  if (problems.length > 0) throw invalid(problems[0]?.message ?? 'Invalid strategy', problems);
  return {
    name: input.name,
    title: input.title ?? null,
    disabled: input.disabled ?? false,
    sortOrder: input.sortOrder ?? sortOrder,
    parameters: completeParameters(input.name, input.parameters ?? {}, ctx),
    constraints: (input.constraints ?? []).map(storedConstraint),
    variants: normaliseVariantWeights(variants).map((v) => storedVariant(v, false)),
    segments: segments.sort((a, b) => a - b),
  };
}
