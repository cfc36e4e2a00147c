import {
  type CompiledFlag,
  type EvaluationContext,
  evaluateCompiled,
  prepareContext,
} from '../../evaluation/index.js';
import { invalid } from '../../platform/http/errors.js';
import type { Configuration } from '../snapshot/index.js';
import type { AdvancedPlaygroundInput, PlaygroundContext, PlaygroundInput } from './playground.schemas.js';
import { OutcomeTexts, reportJsonInto } from './report-json.js';

/**
 * Strategy report texts the advanced playground keeps per environment and configuration revision
 * (report-json.ts OutcomeTexts): about 1,000 strategies' common outcomes.
 */
const OUTCOME_BYTES = 2 * 1024 * 1024;

type Projects = PlaygroundInput['projects'];

/** Which flags a request asks for: `*` or no list means every project. */
function projectFilter(projects: Projects): (project: string) => boolean {
  if (projects === undefined || projects === '*') return () => true;
  const wanted = new Set(projects);
  return (project) => wanted.has(project);
}

/**
 * POST /api/admin/playground: every matching flag in one environment for one context, as JSON
 * text (`{input, features}`), each report's pieces appended by `reportJsonInto`, joined once.
 */
export function playgroundJson(config: Configuration, input: PlaygroundInput, now: Date): string {
  const wanted = projectFilter(input.projects);
  const compiled = config.environment(input.environment).compiled;
  const view = prepareContext(input.context as EvaluationContext, { now, random: Math.random });
  const out = [`{"input":${JSON.stringify(input)},"features":[`];
  let first = true;
  for (const flag of compiled.flags.values()) {
    const project = config.flag(flag.name)?.project ?? 'default';
    if (!wanted(project)) continue;
    const evaluation = evaluateCompiled(compiled, flag, view);
    if (!first) out.push(',');
    first = false;
    const extra = evaluation.isEnabled ? ',"featureEnabled":true' : ',"featureEnabled":false';
    reportJsonInto(out, evaluation, flag, project, input.environment, extra);
  }
  out.push(']}');
  return out.join('');
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
 * memory whole, and the first bytes leave before the last flag is evaluated. Each report's pieces
 * are appended by `reportJsonInto` (the object report of report-json.test.ts, as text) and a flag's
 * pieces joined once: concatenated, they made a rope V8 walked again to flatten it (bench/RESULTS.md
 * "Session 18"). Each context is prepared once for all flags. A flag's text leaves as bytes: Node
 * writes a string chunk of a chunked answer by measuring its UTF-8 length and then encoding it, two
 * passes over it, a Buffer in one (8-13 % less CPU per 15 MB answer, bench/RESULTS.md "Session
 * 17"). Per flag, not gathered into larger pieces: buffers of half a megabyte were slower (each a
 * fresh memory mapping).
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
    outcomes: config
      .environment(environment)
      .memo('playground:outcomes', () => new OutcomeTexts(OUTCOME_BYTES)),
    contexts: contexts.map((context) => ({
      view: prepareContext(context, env),
      // Joined, so that the copy into each report is of one flat string (see report-json.ts).
      fields: [',"environment":', JSON.stringify(environment), ',"context":', JSON.stringify(context)].join(
        '',
      ),
    })),
  }));
  for (const [i, flag] of flags.entries()) {
    const out = [
      `${i === 0 ? '' : ','}{"name":${JSON.stringify(flag.name)},"projectId":${JSON.stringify(flag.project)},"environments":{`,
    ];
    for (const [e, { environment, compiled, contexts, outcomes }] of snapshots.entries()) {
      const compiledFlag = compiled.flags.get(flag.name) as CompiledFlag;
      out.push(`${e === 0 ? '' : ','}${JSON.stringify(environment)}:[`);
      for (const [c, { view, fields }] of contexts.entries()) {
        const evaluation = evaluateCompiled(compiled, compiledFlag, view);
        if (c > 0) out.push(',');
        reportJsonInto(out, evaluation, compiledFlag, flag.project, environment, fields, outcomes);
      }
      out.push(']');
    }
    out.push('}}');
    yield Buffer.from(out.join(''));
  }
  yield `],"warnings":${JSON.stringify({ invalidContextProperties: plan.warnings })}}`;
}
