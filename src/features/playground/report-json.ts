import type {
  CompiledFlag,
  CompiledStrategy,
  ConstraintResult,
  FlagEvaluation,
  StrategyResult,
} from '../../evaluation/index.js';

/**
 * The JSON text of a flag's playground report, the same bytes as `JSON.stringify` of the object
 * `report` builds (playground.service.ts; a test holds the two equal), made without that object.
 *
 * The advanced playground writes up to 100,000 reports per request, most of whose text never changes
 * between them: a strategy's name, id, parameters, constraint definitions and edit link depend on the
 * configuration only. That text is serialised once per compiled strategy (the engine compiles new
 * strategies for every configuration revision and never changes one) and kept beside it; a report
 * then joins those pieces with the few results that vary (constraint, segment and strategy results,
 * the variant).
 */

const json = JSON.stringify;

/** The text of an object without its closing brace, ready for more fields. */
const open = (value: object) => {
  const text = json(value);
  return text.length === 2 ? '{' : `${text.slice(0, -1)},`;
};

type ConstraintDefinition = Omit<ConstraintResult, 'result'>;

/** `{"contextName":...,"result":` for one constraint: the result and `}` follow. */
const constraintHead = (c: ConstraintDefinition) =>
  `${open({
    contextName: c.contextName,
    operator: c.operator,
    values: c.values,
    value: c.value,
    inverted: c.inverted,
    caseInsensitive: c.caseInsensitive,
  })}"result":`;

interface SegmentPieces {
  /** `{"id":1,"name":"beta","result":` */
  head: string;
  constraints: string[];
}

interface StrategyPieces {
  /** What the pieces were made for: a flag moved to another project gets new ones. */
  project: string;
  environment: string;
  /** `{"name":...,"parameters":{...},"result":` */
  head: string;
  constraints: string[];
  segments: SegmentPieces[];
  /** `,"links":{...}}` */
  tail: string;
}

const strategyPieces = new WeakMap<CompiledStrategy, StrategyPieces>();
/** Variant lists are the compiled flag's or strategy's own arrays: serialised once each. */
const variantLists = new WeakMap<object, string>();

function piecesOf(
  compiled: CompiledStrategy,
  result: StrategyResult,
  flag: string,
  project: string,
  environment: string,
): StrategyPieces {
  const known = strategyPieces.get(compiled);
  if (known && known.project === project && known.environment === environment) return known;
  const id = result.id ?? '';
  const edit = `/projects/${project}/features/${flag}/strategies/edit?environmentId=${environment}&strategyId=${id}`;
  const pieces: StrategyPieces = {
    project,
    environment,
    head: `${open({
      name: result.name,
      id,
      title: result.title || undefined,
      disabled: result.disabled,
      parameters: result.parameters,
    })}"result":`,
    constraints: result.constraints.map(constraintHead),
    segments: result.segments.map((s) => ({
      head: `${open({ id: s.id, name: s.name ?? String(s.id) })}"result":`,
      constraints: s.constraints.map(constraintHead),
    })),
    tail: `,"links":${json({ edit })}}`,
  };
  strategyPieces.set(compiled, pieces);
  return pieces;
}

function variantList(variants: FlagEvaluation['variants']): string {
  let text = variantLists.get(variants);
  if (text === undefined) {
    text = json(variants);
    variantLists.set(variants, text);
  }
  return text;
}

function constraintsJson(heads: string[], results: ConstraintResult[]): string {
  let text = '';
  for (let i = 0; i < results.length; i++) {
    text += `${i === 0 ? '' : ','}${heads[i]}${results[i]!.result}}`;
  }
  return text;
}

function strategyResultJson(result: StrategyResult['result']): string {
  const head = `{"enabled":${json(result.enabled)},"evaluationStatus":"${result.evaluationStatus}"`;
  if (result.variant === undefined && result.variants === undefined) return `${head}}`;
  const variant = result.variant === undefined ? '' : `,"variant":${json(result.variant)}`;
  const variants = result.variants === undefined ? '' : `,"variants":${variantList(result.variants)}`;
  return `${head}${variant}${variants}}`;
}

function strategyJson(
  compiled: CompiledStrategy,
  result: StrategyResult,
  flag: string,
  project: string,
  environment: string,
) {
  const pieces = piecesOf(compiled, result, flag, project, environment);
  let segments = '';
  for (let i = 0; i < result.segments.length; i++) {
    const segment = result.segments[i]!;
    const p = pieces.segments[i]!;
    segments += `${i === 0 ? '' : ','}${p.head}${segment.result},"constraints":[${constraintsJson(p.constraints, segment.constraints)}]}`;
  }
  return `${pieces.head}${strategyResultJson(result.result)},"constraints":[${constraintsJson(pieces.constraints, result.constraints)}],"segments":[${segments}]${pieces.tail}`;
}

/**
 * A flag's report as JSON text. `flag` is the compiled flag `evaluation` came from (its strategies
 * pair with the evaluation's by position); `extraFields` is the text of the fields `report`'s extra
 * would add (`,"environment":...`), or ''.
 */
export function reportJson(
  evaluation: FlagEvaluation,
  flag: CompiledFlag,
  project: string,
  environment: string,
  extraFields: string,
): string {
  const data = evaluation.strategies.data;
  let strategies = '';
  for (let i = 0; i < data.length; i++) {
    strategies += `${i === 0 ? '' : ','}${strategyJson(flag.strategies[i]!, data[i]!, evaluation.name, project, environment)}`;
  }
  const enabled = evaluation.isEnabled;
  return (
    `{"name":${json(evaluation.name)},"projectId":${json(project)},` +
    `"strategies":{"result":${json(evaluation.strategies.result)},"data":[${strategies}]},` +
    `"hasUnsatisfiedDependency":${evaluation.hasUnsatisfiedDependency},` +
    `"isEnabledInCurrentEnvironment":${evaluation.isEnabledInCurrentEnvironment},"isEnabled":${enabled},` +
    `"variant":${json(evaluation.variant)},"feature_enabled":${enabled},` +
    `"variants":${variantList(evaluation.variants)}${extraFields}}`
  );
}
