import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import {
  type CompiledSnapshot,
  type ConstraintInput,
  decideFlag,
  type EvaluationContext,
  type SnapshotInput,
  type VariantResult,
} from '../../evaluation/index.js';
import type { EnvironmentSnapshot } from '../snapshot/index.js';

export interface FrontendToggle {
  name: string;
  /** Always true, except in the answers of the edge's `/all` paths (every flag of the scope). */
  enabled: boolean;
  variant: VariantResult;
  impressionData: boolean;
}

/** One answer of the frontend API: the enabled flags for one context, serialised, with its ETag. */
export interface FrontendAnswer {
  toggles: FrontendToggle[];
  /** The JSON as sent (UTF-8), so a kept answer is not encoded again per request. */
  bytes: Buffer;
  /** A strong ETag made from the body: equal answers, equal ETags, whatever the context. */
  etag: string;
  /** The body gzip-compressed, made on first use (worth it only for answers that are kept). */
  gzipped(): Buffer;
}

/** Below this, compressing an answer is not worth a header. */
export const GZIP_FROM_BYTES = 1024;

/** Answers kept per environment snapshot and token scope (replaced with the snapshot). */
const ANSWERS_MAX = 10_000;
const ANSWERS_MAX_BYTES = 64 * 1024 * 1024;
/** Heap per answer byte, roughly: the bytes, the toggle objects, the gzip copy. */
const HEAP_PER_BYTE = 3;

/** An answer kept for a context, good until the clock reaches `until` (ms since the epoch). */
export interface KeptAnswer {
  answer: FrontendAnswer;
  until: number;
}

/**
 * What the frontend API needs of one environment snapshot for one token scope, built once: the
 * flags it may answer (the scope's projects, on in the environment; the others are never enabled),
 * the instants at which a date constraint changes its result, and the answers already given per
 * context.
 */
export interface FrontendScope {
  flags: { name: string; impressionData: boolean }[];
  /** Every flag of the scope is answered, the disabled ones with `enabled: false` (`/all`). */
  includeDisabled: boolean;
  /**
   * Every DATE_AFTER/DATE_BEFORE bound b, and b + 1 ms, sorted (anywhere in the environment: a
   * parent flag may be outside the scope): between two of them no date constraint changes.
   */
  dateBounds: number[];
  answers: LRUCache<string, KeptAnswer>;
}

function dateBounds(input: SnapshotInput): number[] {
  const bounds = new Set<number>();
  const add = (constraints: ConstraintInput[] | undefined) => {
    for (const c of constraints ?? []) {
      if (c.operator !== 'DATE_AFTER' && c.operator !== 'DATE_BEFORE') continue;
      const bound = new Date(c.value ?? '').getTime();
      if (Number.isFinite(bound)) bounds.add(bound).add(bound + 1);
    }
  };
  for (const flag of input.features) for (const strategy of flag.strategies ?? []) add(strategy.constraints);
  for (const segment of input.segments ?? []) add(segment.constraints);
  return [...bounds].sort((a, b) => a - b);
}

/**
 * Until when an answer evaluated at `now` holds (ms): the next date bound after it, or forever
 * when the context fixes the time (`currentTime`) or no date constraint exists.
 */
export function heldUntil(scope: FrontendScope, now: number, fixedTime: boolean): number {
  if (fixedTime) return Number.POSITIVE_INFINITY;
  const bounds = scope.dateBounds;
  let low = 0;
  let high = bounds.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((bounds[mid] as number) > now) high = mid;
    else low = mid + 1;
  }
  return bounds[low] ?? Number.POSITIVE_INFINITY;
}

export function frontendScope(
  snapshot: EnvironmentSnapshot,
  projects: string[],
  includeDisabled = false,
): FrontendScope {
  const all = projects.includes('*');
  const wanted = new Set(projects);
  const flags = snapshot.input.features
    .filter((f) => (includeDisabled || f.enabled) && (all || wanted.has(f.project ?? '')))
    .map((f) => ({ name: f.name, impressionData: Boolean(f.impressionData) }));
  return {
    flags,
    includeDisabled,
    dateBounds: dateBounds(snapshot.input),
    answers: new LRUCache({
      max: ANSWERS_MAX,
      maxSize: ANSWERS_MAX_BYTES,
      sizeCalculation: (kept) => Math.max(1, kept.answer.bytes.length * HEAP_PER_BYTE),
    }),
  };
}

/**
 * Evaluates the scope's flags for the context with the engine's SDK path (`decideFlag`) and keeps
 * the enabled ones (all of them with `includeDisabled`). `random`: whether the engine drew a random number (a rollout or variant
 * without a stickiness value), i.e. whether another request with the same context could get
 * another answer.
 */
export function evaluateScope(
  scope: FrontendScope,
  compiled: CompiledSnapshot,
  context: EvaluationContext,
  now: Date,
): { answer: FrontendAnswer; random: boolean } {
  let random = false;
  const env = {
    now,
    random: () => {
      random = true;
      return Math.random();
    },
  };
  const toggles: FrontendToggle[] = [];
  for (const flag of scope.flags) {
    const decision = decideFlag(compiled, flag.name, context, env);
    if (!decision || (!decision.isEnabled && !scope.includeDisabled)) continue;
    toggles.push({
      name: flag.name,
      enabled: decision.isEnabled,
      variant: decision.variant,
      impressionData: flag.impressionData,
    });
  }
  const bytes = Buffer.from(JSON.stringify({ toggles }));
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
  let gzipped: Buffer | undefined;
  const answer = {
    toggles,
    bytes,
    etag,
    gzipped: () => {
      gzipped ??= gzipSync(bytes);
      return gzipped;
    },
  };
  return { answer, random };
}
