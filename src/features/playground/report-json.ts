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

/** Texts kept by owner and key, a few per owner, up to a byte limit for all of them. */
class KeptTexts<Owner extends object, Key> {
  private readonly byOwner = new Map<Owner, Map<Key, string>>();
  private bytes = 0;
  private refused = false;

  constructor(
    private readonly limitBytes: number,
    private readonly perOwner: number,
  ) {}

  /** Once a text did not fit, no more are kept: reports are then written from their pieces. */
  get full(): boolean {
    return this.refused;
  }

  text(owner: Owner, key: Key): string | undefined {
    return this.byOwner.get(owner)?.get(key);
  }

  keep(owner: Owner, key: Key, text: string): void {
    let texts = this.byOwner.get(owner);
    if (texts && texts.size >= this.perOwner) return;
    if (this.bytes + text.length > this.limitBytes) {
      this.refused = true;
      return;
    }
    if (!texts) {
      texts = new Map();
      this.byOwner.set(owner, texts);
    }
    this.bytes += text.length;
    texts.set(key, text);
  }
}

/**
 * Whole texts kept between the reports of one environment of one configuration revision (its
 * memo), so they go when the environment changes, and limited in size (each store to
 * `limitBytes`): at 1,000 flags and more they would otherwise hold several MB for as long as the
 * configuration lives. Past the limit, reports are written from their pieces each time.
 * - `strategies`: a strategy's report by its outcome (outcomeKey): many contexts meet a strategy
 *   the same way.
 * - `reports`: a flag's whole report but its extra fields, by the outcome of the flag (reportKey):
 *   many contexts meet a flag the same way too, and the report is then one piece, not dozens.
 */
export class OutcomeTexts {
  readonly strategies: KeptTexts<StrategyPieces, number>;
  readonly reports: KeptTexts<FlagPieces, number>;

  constructor(limitBytes: number) {
    this.strategies = new KeptTexts(limitBytes, KEPT_OUTCOMES);
    this.reports = new KeptTexts(limitBytes, KEPT_REPORTS);
  }
}

/** How many outcomes of one flag keep their whole report. */
const KEPT_REPORTS = 8;

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
 * The number being packed by `packStrategy` and `reportKey`: one accumulator, not an object per
 * report (they run once per strategy and report, 100,000 times in a large answer).
 */
const packed = { key: 0, range: 1 };

function pack(value: number, size: number) {
  packed.key = packed.key * size + value;
  packed.range *= size;
}

/**
 * Packs everything that varies in a strategy's report (enabled, status, the chosen strategy
 * variant, each constraint's and segment's result); false when it cannot be named by a number.
 */
function packStrategy(result: StrategyResult): boolean {
  const { enabled, evaluationStatus, variant, variants } = result.result;
  pack(ENABLED_CODE[String(enabled) as keyof typeof ENABLED_CODE] * 3 + STATUS_CODE[evaluationStatus], 9);
  if (variant !== undefined) {
    // Chosen from the strategy's own definitions (the same array each time): its position names it.
    const index = variants?.findIndex((v) => v.name === variant.name && v.payload === variant.payload) ?? -1;
    if (index < 0) return false;
    pack(index + 1, variants!.length + 1);
  } else if (variants !== undefined) {
    return false;
  }
  for (const c of result.constraints) pack(c.result ? 1 : 0, 2);
  for (const segment of result.segments) {
    pack(segment.result ? 1 : 0, 2);
    for (const c of segment.constraints) pack(c.result ? 1 : 0, 2);
  }
  return true;
}

/** A number naming a strategy's report among those of the same strategy, or undefined. */
function outcomeKey(result: StrategyResult): number | undefined {
  packed.key = 0;
  packed.range = 1;
  return packStrategy(result) && packed.range <= 2 ** 48 ? packed.key : undefined;
}

/**
 * A number naming a flag's report among those of the same flag, project and environment, or
 * undefined. What varies in it: whether the dependencies are met, each strategy's outcome (which,
 * with the flag's own state, decide the overall result, `isEnabled`, the winning strategy and so
 * whose variant list is reported) and the chosen variant, named by its position in that list (0: a
 * disabled variant, which `isEnabled` tells apart).
 */
function reportKey(evaluation: FlagEvaluation): number | undefined {
  const { variant, variants } = evaluation;
  let chosen = 0;
  if (variant.enabled) {
    chosen = variants.findIndex((v) => v.name === variant.name && v.payload === variant.payload) + 1;
    if (chosen === 0) return undefined;
  }
  packed.key = 0;
  packed.range = 1;
  pack(evaluation.hasUnsatisfiedDependency ? 1 : 0, 2);
  pack(chosen, variants.length + 1);
  for (const result of evaluation.strategies.data) if (!packStrategy(result)) return undefined;
  return packed.range <= Number.MAX_SAFE_INTEGER ? packed.key : undefined;
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
  const kept = outcomes.strategies;
  let text = kept.text(pieces, key);
  if (text === undefined) {
    if (kept.full) return strategyPartsInto(out, pieces, result);
    const parts: string[] = [];
    strategyPartsInto(parts, pieces, result);
    text = parts.join('');
    kept.keep(pieces, key, text);
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
 * strategy and report texts between them.
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
  const key = outcomes && reportKey(evaluation);
  if (outcomes !== undefined && key !== undefined) {
    const kept = outcomes.reports;
    const owner = flagPiecesOf(flag, project, environment);
    let text = kept.text(owner, key);
    if (text === undefined && !kept.full) {
      const parts: string[] = [];
      reportBodyInto(parts, evaluation, flag, project, environment, outcomes);
      text = parts.join('');
      kept.keep(owner, key, text);
    }
    if (text !== undefined) {
      out.push(text, extraFields, '}');
      return;
    }
  }
  reportBodyInto(out, evaluation, flag, project, environment, outcomes);
  out.push(extraFields, '}');
}

/** A flag's report without its extra fields and closing brace. */
function reportBodyInto(
  out: string[],
  evaluation: FlagEvaluation,
  flag: CompiledFlag,
  project: string,
  environment: string,
  outcomes: OutcomeTexts | undefined,
) {
  const data = evaluation.strategies.data;
  out.push(
    flagPiecesOf(flag, project, environment).head,
    STRATEGIES_RESULT[String(evaluation.strategies.result)]!,
  );
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
  );
}

/**
 * What is kept per compiled flag for the project and environment it is reported in: the report's
 * head, `{"name":...,"projectId":...,"strategies":{"result":`, and, as the object itself, the owner
 * of the flag's kept reports (a flag reported elsewhere gets a new one, and so new reports).
 */
interface FlagPieces {
  project: string;
  environment: string;
  head: string;
}

const flagPieces = new WeakMap<CompiledFlag, FlagPieces>();

function flagPiecesOf(flag: CompiledFlag, project: string, environment: string): FlagPieces {
  const known = flagPieces.get(flag);
  if (known && known.project === project && known.environment === environment) return known;
  const head = ['{"name":', json(flag.name), ',"projectId":', json(project), ',"strategies":{"result":'].join(
    '',
  );
  const pieces = { project, environment, head };
  flagPieces.set(flag, pieces);
  return pieces;
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
