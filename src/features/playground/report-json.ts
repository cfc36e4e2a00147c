import type {
  CompiledFlag,
  CompiledStrategy,
  ConstraintResult,
  FlagEvaluation,
  StrategyResult,
} from '../../evaluation/index.js';

/**
 * The JSON text of a flag's playground report, the same bytes as `JSON.stringify` of the object
 * `report` builds (report-json.test.ts, which holds the two equal), made without that object.
 *
 * The advanced playground writes up to 100,000 reports per request, most of whose text never changes
 * between them: a strategy's name, id, parameters, constraint definitions and edit link depend on the
 * configuration only. That text is serialised once per compiled strategy (the engine compiles new
 * strategies for every configuration revision and never changes one) and kept beside it; the whole
 * texts of a strategy's common outcomes are kept per environment (OutcomeTexts). A report appends
 * those pieces and the few results that vary to an array its caller joins once (bench/RESULTS.md
 * "Session 18": 32 → 18 ms of CPU per 15 MB answer).
 */

const json = JSON.stringify;

/**
 * `value`'s JSON text without its closing brace, followed by `,"result":` (or `{"result":` for an
 * empty object). Joined, not concatenated: the kept pieces are copied into every report, and a
 * concatenation is a rope V8 walks again at each copy, where a joined string is one flat block.
 */
const headOf = (value: object) => {
  const text = json(value);
  return (text.length === 2 ? ['{"result":'] : [text.slice(0, -1), ',"result":']).join('');
};

type ConstraintDefinition = Omit<ConstraintResult, 'result'>;

/** `{"contextName":...,"result":` for one constraint: the result and `}` follow. */
const constraintHead = (c: ConstraintDefinition) =>
  headOf({
    contextName: c.contextName,
    operator: c.operator,
    values: c.values,
    value: c.value,
    inverted: c.inverted,
    caseInsensitive: c.caseInsensitive,
  });

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

/**
 * Whole texts of strategy reports by strategy and outcome (see outcomeKey): many contexts meet a
 * strategy the same way. Kept with one environment of one configuration revision (its memo), so
 * they go when the environment changes, and limited in size: at 1,000 flags and more they would
 * otherwise hold several MB for as long as the configuration lives. Past the limit, strategies
 * are written from their pieces each time.
 */
export class OutcomeTexts {
  private readonly byStrategy = new Map<StrategyPieces, Map<number, string>>();
  private bytes = 0;
  private refused = false;

  constructor(private readonly limitBytes: number) {}

  /** Once a text did not fit, no more are kept: reports then write strategies from their pieces. */
  get full(): boolean {
    return this.refused;
  }

  text(pieces: StrategyPieces, key: number): string | undefined {
    return this.byStrategy.get(pieces)?.get(key);
  }

  /** Keeps `text` for the strategy's outcome `key`, up to KEPT_OUTCOMES per strategy and the limit. */
  keep(pieces: StrategyPieces, key: number, text: string): void {
    let texts = this.byStrategy.get(pieces);
    if (texts && texts.size >= KEPT_OUTCOMES) return;
    if (this.bytes + text.length > this.limitBytes) {
      this.refused = true;
      return;
    }
    if (!texts) {
      texts = new Map();
      this.byStrategy.set(pieces, texts);
    }
    this.bytes += text.length;
    texts.set(key, text);
  }
}

/** How many outcomes of one strategy keep their whole text. */
const KEPT_OUTCOMES = 4;

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
    head: headOf({
      name: result.name,
      id,
      title: result.title || undefined,
      disabled: result.disabled,
      parameters: result.parameters,
    }),
    constraints: result.constraints.map(constraintHead),
    segments: result.segments.map((s) => ({
      head: headOf({ id: s.id, name: s.name ?? String(s.id) }),
      constraints: s.constraints.map(constraintHead),
    })),
    tail: [',"links":', json({ edit }), '}'].join(''),
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

/** Appends `{...head, "result": r}` for each constraint, comma-separated. */
function constraintsInto(out: string[], heads: string[], results: ConstraintResult[]) {
  for (let i = 0; i < results.length; i++) {
    if (i > 0) out.push(',');
    out.push(heads[i]!, results[i]!.result ? 'true}' : 'false}');
  }
}

function strategyResultInto(out: string[], result: StrategyResult['result']) {
  out.push(`{"enabled":${json(result.enabled)},"evaluationStatus":"${result.evaluationStatus}"`);
  if (result.variant !== undefined) out.push(',"variant":', json(result.variant));
  if (result.variants !== undefined) out.push(',"variants":', variantList(result.variants));
  out.push('}');
}

const ENABLED_CODE = { true: 0, false: 1, unknown: 2 } as const;
const STATUS_CODE = { complete: 0, incomplete: 1, unevaluated: 2 } as const;

/**
 * A number naming everything that varies in a strategy's report (enabled, status, the chosen
 * strategy variant, each constraint's and segment's result), or undefined when there are too many
 * results to pack exactly.
 */
function outcomeKey(result: StrategyResult): number | undefined {
  const { enabled, evaluationStatus, variant, variants } = result.result;
  let key = ENABLED_CODE[String(enabled) as keyof typeof ENABLED_CODE] * 3 + STATUS_CODE[evaluationStatus];
  let range = 9;
  if (variant !== undefined) {
    // Chosen from the strategy's own definitions (the same array each time): its position names it.
    const index = variants?.findIndex((v) => v.name === variant.name && v.payload === variant.payload) ?? -1;
    if (index < 0) return undefined;
    key = key * (variants!.length + 1) + index + 1;
    range *= variants!.length + 1;
  } else if (variants !== undefined) {
    return undefined;
  }
  for (const c of result.constraints) {
    key = key * 2 + (c.result ? 1 : 0);
    range *= 2;
  }
  for (const segment of result.segments) {
    key = key * 2 + (segment.result ? 1 : 0);
    range *= 2;
    for (const c of segment.constraints) {
      key = key * 2 + (c.result ? 1 : 0);
      range *= 2;
    }
  }
  return range <= 2 ** 48 ? key : undefined;
}

function strategyPartsInto(out: string[], pieces: StrategyPieces, result: StrategyResult) {
  out.push(pieces.head);
  strategyResultInto(out, result.result);
  out.push(',"constraints":[');
  constraintsInto(out, pieces.constraints, result.constraints);
  out.push('],"segments":[');
  for (let i = 0; i < result.segments.length; i++) {
    const segment = result.segments[i]!;
    const p = pieces.segments[i]!;
    out.push(i === 0 ? '' : ',', p.head, segment.result ? 'true' : 'false', ',"constraints":[');
    constraintsInto(out, p.constraints, segment.constraints);
    out.push(']}');
  }
  out.push(']', pieces.tail);
}

/**
 * A strategy's report. With `outcomes`, its common outcomes keep their whole text: contexts that
 * meet a strategy the same way then add one piece to the report, not dozens.
 */
function strategyInto(
  out: string[],
  compiled: CompiledStrategy,
  result: StrategyResult,
  flag: string,
  project: string,
  environment: string,
  outcomes: OutcomeTexts | undefined,
) {
  const pieces = piecesOf(compiled, result, flag, project, environment);
  const key = outcomes && outcomeKey(result);
  if (outcomes === undefined || key === undefined) return strategyPartsInto(out, pieces, result);
  let text = outcomes.text(pieces, key);
  if (text === undefined) {
    if (outcomes.full) return strategyPartsInto(out, pieces, result);
    const parts: string[] = [];
    strategyPartsInto(parts, pieces, result);
    text = parts.join('');
    outcomes.keep(pieces, key, text);
  }
  out.push(text);
}

/**
 * Appends a flag's report as JSON text to `out` (joined by the caller: one copy into a flat
 * string, where concatenating the pieces built a deep rope that V8 then had to walk to flatten it
 * for the socket, about a third of the advanced playground's CPU, bench/RESULTS.md "Session 18").
 * `flag` is the compiled flag `evaluation` came from (its strategies pair with the evaluation's by
 * position); `extraFields` is the text of the fields `report`'s extra would add
 * (`,"environment":...`), or ''; `outcomes`, shared by the reports of one environment, keeps
 * strategy texts between them.
 */
export function reportJsonInto(
  out: string[],
  evaluation: FlagEvaluation,
  flag: CompiledFlag,
  project: string,
  environment: string,
  extraFields: string,
  outcomes?: OutcomeTexts,
) {
  const data = evaluation.strategies.data;
  out.push(headOfFlag(flag, project), STRATEGIES_RESULT[String(evaluation.strategies.result)]!);
  for (let i = 0; i < data.length; i++) {
    if (i > 0) out.push(',');
    strategyInto(out, flag.strategies[i]!, data[i]!, evaluation.name, project, environment, outcomes);
  }
  const { hasUnsatisfiedDependency: a, isEnabledInCurrentEnvironment: b, isEnabled: c } = evaluation;
  out.push(
    STATES[(a ? 4 : 0) + (b ? 2 : 0) + (c ? 1 : 0)]!,
    variantJson(evaluation.variant),
    c ? ',"feature_enabled":true,"variants":' : ',"feature_enabled":false,"variants":',
    variantList(evaluation.variants),
    extraFields,
    '}',
  );
}

/** `{"name":...,"projectId":...,"strategies":{"result":`, kept per compiled flag and project. */
const flagHeads = new WeakMap<CompiledFlag, { project: string; head: string }>();

function headOfFlag(flag: CompiledFlag, project: string): string {
  const known = flagHeads.get(flag);
  if (known?.project === project) return known.head;
  const head = ['{"name":', json(flag.name), ',"projectId":', json(project), ',"strategies":{"result":'].join(
    '',
  );
  flagHeads.set(flag, { project, head });
  return head;
}

const STRATEGIES_RESULT: Record<string, string> = {
  true: 'true,"data":[',
  false: 'false,"data":[',
  unknown: '"unknown","data":[',
};

/** The fields between the strategies and the variant, by their three booleans (a, b, c as bits). */
const STATES = Array.from(
  { length: 8 },
  (_, i) =>
    `]},"hasUnsatisfiedDependency":${(i & 4) > 0},"isEnabledInCurrentEnvironment":${(i & 2) > 0},"isEnabled":${(i & 1) > 0},"variant":`,
);

/** The disabled variant, the most common by far, as `variantResult` in the engine builds it. */
const disabledVariant = (featureEnabled: boolean) =>
  json({
    name: 'disabled',
    enabled: false,
    payload: undefined,
    feature_enabled: featureEnabled,
    featureEnabled,
  } satisfies FlagEvaluation['variant']);
const DISABLED = [disabledVariant(false), disabledVariant(true)];

function variantJson(variant: FlagEvaluation['variant']): string {
  if (variant.name === 'disabled' && !variant.enabled && variant.payload === undefined) {
    return DISABLED[variant.feature_enabled ? 1 : 0]!;
  }
  return json(variant);
}
