import {
  type CompiledFlag,
  type EvaluationContext,
  evaluateAll,
  evaluateCompiled,
  type FlagEvaluation,
  prepareContext,
  type StrategyResult,
} from '../../evaluation/index.js';
import { invalid } from '../../platform/http/errors.js';
import type { Configuration } from '../snapshot/index.js';
import type { AdvancedPlaygroundInput, PlaygroundContext, PlaygroundInput } from './playground.schemas.js';
import { reportJson } from './report-json.js';

type Projects = PlaygroundInput['projects'];

/** Which flags a request asks for: `*` or no list means every project. */
function projectFilter(projects: Projects): (project: string) => boolean {
  if (projects === undefined || projects === '*') return () => true;
  const wanted = new Set(projects);
  return (project) => wanted.has(project);
}

const hasNames = (segments: StrategyResult['segments']) => segments.every((s) => s.name !== undefined);

/**
 * A strategy as the playground reports it. Built for every (flag, context) pair, up to 100,000 per
 * request: the engine's constraint and segment results are passed through as they are (no copies),
 * only a segment missing from the snapshot gets a name.
 */
function strategyReport(strategy: StrategyResult, project: string, flag: string, environment: string) {
  const id = strategy.id ?? '';
  return {
    name: strategy.name,
    id,
    title: strategy.title || undefined,
    disabled: strategy.disabled,
    parameters: strategy.parameters,
    result: strategy.result,
    constraints: strategy.constraints,
    segments: hasNames(strategy.segments)
      ? strategy.segments
      : strategy.segments.map((s) => ({
          id: s.id,
          name: s.name ?? String(s.id),
          result: s.result,
          constraints: s.constraints,
        })),
    links: {
      edit: `/projects/${project}/features/${flag}/strategies/edit?environmentId=${environment}&strategyId=${id}`,
    },
  };
}

/**
 * The engine's answer plus what the playground reports around it (docs/evaluation.md §12), with
 * `extra`'s fields last: one object literal per answer (a spread or added keys afterwards would
 * copy it or change its shape, for each of up to 100,000 answers).
 */
export function report<E extends object>(
  evaluation: FlagEvaluation,
  project: string,
  environment: string,
  extra: E,
) {
  return {
    name: evaluation.name,
    projectId: project,
    strategies: {
      result: evaluation.strategies.result,
      data: evaluation.strategies.data.map((s) => strategyReport(s, project, evaluation.name, environment)),
    },
    hasUnsatisfiedDependency: evaluation.hasUnsatisfiedDependency,
    isEnabledInCurrentEnvironment: evaluation.isEnabledInCurrentEnvironment,
    isEnabled: evaluation.isEnabled,
    variant: evaluation.variant,
    feature_enabled: evaluation.isEnabled,
    variants: evaluation.variants,
    ...extra,
  };
}

function evaluateEnvironment(
  config: Configuration,
  environment: string,
  context: EvaluationContext,
  wanted: (project: string) => boolean,
  now: Date,
) {
  const snapshot = config.environment(environment).compiled;
  const results = [];
  for (const evaluation of evaluateAll(snapshot, context, { now, random: Math.random })) {
    const project = config.flag(evaluation.name)?.project ?? 'default';
    if (wanted(project)) {
      results.push(report(evaluation, project, environment, { featureEnabled: evaluation.isEnabled }));
    }
  }
  return results;
}

/** POST /api/admin/playground: every matching flag in one environment for one context. */
export function runPlayground(config: Configuration, input: PlaygroundInput, now: Date) {
  const features = evaluateEnvironment(
    config,
    input.environment,
    input.context as EvaluationContext,
    projectFilter(input.projects),
    now,
  );
  return { input, features };
}

/**
 * docs/evaluation.md §0.9: top-level entries that are not strings (other than `properties`) are
 * dropped and reported; properties are flattened to top level; every value is split on commas
 * (no trimming) and each combination of the pieces is one context.
 */
export function expandContext(context: PlaygroundContext) {
  const invalidContextProperties: string[] = [];
  const fields: [string, string[]][] = [];
  for (const [key, value] of Object.entries(context)) {
    if (key === 'properties') continue;
    if (typeof value === 'string') fields.push([key, value.split(',')]);
    else if (value !== undefined) invalidContextProperties.push(key);
  }
  for (const [key, value] of Object.entries(context.properties ?? {})) fields.push([key, value.split(',')]);
  const count = fields.reduce((n, [, pieces]) => n * pieces.length, 1);
  const contexts = () =>
    fields.reduce<Record<string, string>[]>(
      (acc, [key, pieces]) => acc.flatMap((ctx) => pieces.map((piece) => ({ ...ctx, [key]: piece }))),
      [{}],
    );
  return { count, contexts, invalidContextProperties };
}

/**
 * POST /api/admin/playground/advanced, checked before any output: environments x flags x
 * context combinations, refused above the limit (§0.9).
 */
export function planAdvancedPlayground(config: Configuration, input: AdvancedPlaygroundInput, limit: number) {
  const wanted = projectFilter(input.projects);
  const flags = config.flags.filter((f) => wanted(f.project));
  const expansion = expandContext(input.context);
  const total = input.environments.length * flags.length * expansion.count;
  if (total > limit) {
    throw invalid(
      `The request would need ${total} evaluations, more than the limit of ${limit}: ` +
        `${input.environments.length} environments x ${flags.length} flags x ${expansion.count} context combinations. ` +
        'Narrow the projects, environments or comma-separated context values.',
    );
  }
  return {
    config,
    input,
    flags,
    contexts: expansion.contexts(),
    warnings: expansion.invalidContextProperties,
  };
}

/**
 * The response as JSON text, one flag at a time: a 100,000-evaluation answer is never held in
 * memory whole, and the first bytes leave before the last flag is evaluated. Each report is written
 * by `reportJson`, the text `report` would give; each context is prepared once for all flags.
 */
export function* advancedPlaygroundJson(plan: ReturnType<typeof planAdvancedPlayground>, now: Date) {
  const { config, input, flags, contexts } = plan;
  yield `{"input":${JSON.stringify(input)},"features":[`;
  const env = { now, random: Math.random };
  // The keys of `environments` in the order (and with the collapsing of repeats) of an object
  // built by assigning them one by one.
  const environments = Object.keys(Object.fromEntries(input.environments.map((e) => [e, true])));
  const snapshots = environments.map((environment) => ({
    environment,
    compiled: config.environment(environment).compiled,
    contexts: contexts.map((context) => ({
      view: prepareContext(context, env),
      fields: `,"environment":${JSON.stringify(environment)},"context":${JSON.stringify(context)}`,
    })),
  }));
  for (const [i, flag] of flags.entries()) {
    let text = `${i === 0 ? '' : ','}{"name":${JSON.stringify(flag.name)},"projectId":${JSON.stringify(flag.project)},"environments":{`;
    for (const [e, { environment, compiled, contexts }] of snapshots.entries()) {
      const compiledFlag = compiled.flags.get(flag.name) as CompiledFlag;
      text += `${e === 0 ? '' : ','}${JSON.stringify(environment)}:[`;
      for (const [c, { view, fields }] of contexts.entries()) {
        const evaluation = evaluateCompiled(compiled, compiledFlag, view);
        text += `${c === 0 ? '' : ','}${reportJson(evaluation, compiledFlag, flag.project, environment, fields)}`;
      }
      text += ']';
    }
    yield `${text}}}`;
  }
  yield `],"warnings":${JSON.stringify({ invalidContextProperties: plan.warnings })}}`;
}
