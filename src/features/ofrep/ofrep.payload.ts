import type { Decision, FlagInput, VariantDefinition } from '../../evaluation/index.js';
import type { EnvironmentSnapshot } from '../snapshot/index.js';

/**
 * What kind of value a flag answers with in OFREP, which has one value per flag and no type in
 * the request: decided from the flag's configuration in the environment, the same for every context.
 * `name`: variants without any payload (the value is the variant name); `raw`: payloads of several
 * types (the value is the payload text).
 */
export type ValueKind = 'boolean' | 'string' | 'number' | 'object' | 'name' | 'raw';

export type Reason = 'STATIC' | 'TARGETING_MATCH' | 'SPLIT' | 'DISABLED' | 'DEFAULT';
type Metadata = Record<string, string | number | boolean>;

export interface OfrepSuccess {
  key: string;
  value?: boolean | string | number | object;
  reason: Reason;
  variant: string;
  metadata: Metadata;
}

export interface OfrepFailure {
  key: string;
  errorCode: 'PARSE_ERROR';
  errorDetails: string;
  metadata: Metadata;
}

export type OfrepResult = OfrepSuccess | OfrepFailure;

/** One flag of a token's scope as OFREP reports it, derived once per environment snapshot. */
export interface OfrepFlag {
  name: string;
  /** On in the environment. */
  on: boolean;
  kind: ValueKind;
  /** The reason when the flag is enabled for a context (see `enabledReason`). */
  reason: 'STATIC' | 'TARGETING_MATCH' | 'SPLIT';
  meta: Metadata;
}

/** The flags a token may evaluate (its projects, on or off) in one environment, by name. */
export interface OfrepScope {
  flags: OfrepFlag[];
  byName: Map<string, OfrepFlag>;
}

/** Strategy types whose outcome depends on nothing but a percentage. */
const ROLLOUTS = new Set([
  'default',
  'flexibleRollout',
  'gradualRolloutRandom',
  'gradualRolloutUserId',
  'gradualRolloutSessionId',
]);

function activeStrategies(flag: FlagInput) {
  return (flag.strategies ?? []).filter((s) => !s.disabled);
}

function allVariants(flag: FlagInput): VariantDefinition[] {
  return [...(flag.variants ?? []), ...activeStrategies(flag).flatMap((s) => s.variants ?? [])];
}

export function valueKind(flag: FlagInput): ValueKind {
  const variants = allVariants(flag);
  if (variants.length === 0) return 'boolean';
  const types = new Set(variants.flatMap((v) => (v.payload ? [v.payload.type] : [])));
  if (types.size === 0) return 'name';
  if (types.size > 1) return 'raw';
  const [type] = types;
  return type === 'number' ? 'number' : type === 'json' ? 'object' : 'string';
}

/**
 * The reason of an enabled answer, per flag from its configuration (the engine's SDK path does not
 * say which strategy decided): `SPLIT` when a percentage below 100 or a choice among several
 * variants takes part, else `TARGETING_MATCH` when constraints, segments, other strategy types,
 * variant overrides or dependencies do, else `STATIC` (the same answer for every context).
 */
export function enabledReason(flag: FlagInput): OfrepFlag['reason'] {
  const active = activeStrategies(flag);
  const percentage = (parameters: Record<string, string> | undefined) =>
    Number(parameters?.rollout ?? parameters?.percentage ?? 100);
  const split =
    active.some((s) => ROLLOUTS.has(s.name) && percentage(s.parameters) < 100) ||
    (flag.variants ?? []).length > 1 ||
    active.some((s) => (s.variants ?? []).length > 1);
  if (split) return 'SPLIT';
  const targeting =
    (flag.dependencies ?? []).length > 0 ||
    active.some(
      (s) => !ROLLOUTS.has(s.name) || (s.constraints ?? []).length > 0 || (s.segments ?? []).length > 0,
    ) ||
    allVariants(flag).some((v) => (v.overrides ?? []).length > 0);
  return targeting ? 'TARGETING_MATCH' : 'STATIC';
}

export function ofrepScope(snapshot: EnvironmentSnapshot, projects: string[]): OfrepScope {
  const all = projects.includes('*');
  const wanted = new Set(projects);
  const flags = snapshot.input.features
    .filter((f) => all || wanted.has(f.project ?? ''))
    .map(
      (f): OfrepFlag => ({
        name: f.name,
        on: f.enabled,
        kind: valueKind(f),
        reason: enabledReason(f),
        meta: {
          project: f.project ?? 'default',
          flagType: f.type ?? 'release',
          impressionData: Boolean(f.impressionData),
        },
      }),
    );
  return { flags, byName: new Map(flags.map((f) => [f.name, f])) };
}

/** A payload as the value of its kind, or why it cannot be one. */
function payloadValue(
  kind: ValueKind,
  payload: { type: string; value: string },
): { value: unknown } | string {
  if (kind === 'number') {
    const value = Number(payload.value);
    return payload.value.trim() !== '' && Number.isFinite(value)
      ? { value }
      : `The number payload "${payload.value}" is not a finite number.`;
  }
  if (kind === 'object') {
    try {
      const value: unknown = JSON.parse(payload.value);
      if (value !== null && typeof value === 'object') return { value };
    } catch {}
    return 'The json payload is not a JSON object or array.';
  }
  return { value: payload.value };
}

/**
 * The OFREP answer for one flag and the engine's decision (docs/api.md §10d): a boolean flag is
 * `true`/`false` with the variant `enabled`/`disabled`; any other flag gives the chosen variant's
 * payload (or its name), and no value at all (OFREP's "use the application's default") when the
 * flag is off, not enabled for the context, or without a variant. The bulk answer is this; the
 * single answer fills the missing value in (`withValue`).
 */
export function ofrepResult(flag: OfrepFlag, decision: Decision | undefined): OfrepResult {
  const enabled = Boolean(decision?.isEnabled);
  const metadata: Metadata = { enabled, ...flag.meta };
  const boolean = flag.kind === 'boolean';
  if (!flag.on || !decision?.isEnabled) {
    const reason = flag.on ? 'DEFAULT' : 'DISABLED';
    return { key: flag.name, ...(boolean ? { value: false } : {}), reason, variant: 'disabled', metadata };
  }
  if (boolean) return { key: flag.name, value: true, reason: flag.reason, variant: 'enabled', metadata };
  const variant = decision.variant;
  if (!variant.enabled) return { key: flag.name, reason: 'DEFAULT', variant: 'disabled', metadata };
  if (flag.kind === 'name')
    return { key: flag.name, value: variant.name, reason: flag.reason, variant: variant.name, metadata };
  if (!variant.payload) return { key: flag.name, reason: flag.reason, variant: variant.name, metadata };
  metadata.payloadType = variant.payload.type;
  const converted = payloadValue(flag.kind, variant.payload);
  if (typeof converted === 'string') {
    return { key: flag.name, errorCode: 'PARSE_ERROR', errorDetails: converted, metadata };
  }
  return {
    key: flag.name,
    value: converted.value as OfrepSuccess['value'],
    reason: flag.reason,
    variant: variant.name,
    metadata,
  };
}

/** A value of the kind that says "nothing": what a non-boolean flag answers when it has none. */
function emptyValue(kind: Exclude<ValueKind, 'boolean'>): string | number | object {
  if (kind === 'number') return 0;
  return kind === 'object' ? {} : '';
}

/**
 * The single-flag answer, which always has a `value`: `@openfeature/ofrep-provider` 0.1.x takes a
 * 200 without one for a malformed answer (an error, GENERAL) and a value whose `typeof` differs
 * from the caller's default (`null` too) for TYPE_MISMATCH, and no answer gives that provider the
 * caller's own default without an error. So an answer without a value gets its kind's empty value
 * (`""`, `0`, `{}`) and keeps its reason (`DISABLED`, `DEFAULT`) and variant: a resolution, not an
 * error, as Flipt answers a disabled variant flag. The bulk answer keeps OFREP's code default
 * (no `value`): the web provider gives the caller's default for it, with the reason.
 */
export function withValue(flag: OfrepFlag, result: OfrepResult): OfrepResult {
  if ('errorCode' in result || result.value !== undefined || flag.kind === 'boolean') return result;
  return { ...result, value: emptyValue(flag.kind) };
}
