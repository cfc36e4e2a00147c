import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import semver from 'semver';
import type { ConstraintInput, FlagInput, SnapshotInput, StrategyInput } from '../../evaluation/index.js';
import type { Configuration } from '../snapshot/index.js';

type ClientFlag = ReturnType<typeof flagFor>;

/**
 * Each flag's client form and its JSON text, per engine input object: a flag whose input object is
 * carried over to a new revision (it did not change) is not converted or serialised again.
 * Segment constraints are inlined only for old SDKs; segments change only with a full read, which
 * makes new input objects.
 */
interface SerialisedFlag {
  value: ClientFlag;
  text: string;
  digest: string;
  /** The segment ids its strategies use (sent separately, not inlined). */
  segments: number[];
}
const plainFlags = new WeakMap<FlagInput, SerialisedFlag>();
const inlinedFlags = new WeakMap<FlagInput, SerialisedFlag>();

/**
 * A client-API answer, serialised once per revision and scope, with a strong ETag for each of its
 * two representations (RFC 9110 §8.8.3: the gzip-encoded bytes are not the plain ones).
 */
export interface ClientPayload {
  features: ClientFlag[];
  /** The JSON text, made on first use (a 304 never needs it). */
  readonly body: string;
  /**
   * The JSON text as UTF-8 bytes, made once and kept with the payload: sent as they are, where a
   * string would be measured and encoded again for every request.
   */
  bytes(): Buffer;
  etag: string;
  /** The ETag of the gzip-encoded representation. */
  gzipEtag: string;
  /** The body gzip-compressed, made once and kept with the payload (same revision). */
  gzipped(): Buffer;
}

/** SDKs that announce client specification 4.2.0 or later receive segments separately. */
export function supportsSegments(specHeader: string | undefined): boolean {
  if (!specHeader) return false;
  let supports = segmentSupport.get(specHeader);
  if (supports === undefined) {
    const version = semver.coerce(specHeader);
    supports = version !== null && semver.gte(version, '4.2.0');
    // The few versions SDKs send, remembered (bounded: a header is whatever a caller writes).
    if (segmentSupport.size >= 100) segmentSupport.clear();
    segmentSupport.set(specHeader, supports);
  }
  return supports;
}

const segmentSupport = new Map<string, boolean>();

function strategyFor(
  strategy: StrategyInput,
  segmentConstraints: Map<number, ConstraintInput[]>,
  inlineSegments: boolean,
) {
  const segments = strategy.segments ?? [];
  const constraints = inlineSegments
    ? [...segments.flatMap((id) => segmentConstraints.get(id) ?? []), ...(strategy.constraints ?? [])]
    : (strategy.constraints ?? []);
  return {
    name: strategy.name,
    constraints,
    parameters: strategy.parameters ?? {},
    ...(inlineSegments ? {} : { segments }),
    variants: strategy.variants ?? [],
  };
}

function flagFor(
  flag: FlagInput,
  segmentConstraints: Map<number, ConstraintInput[]>,
  inlineSegments: boolean,
) {
  return {
    name: flag.name,
    type: flag.type,
    description: flag.description ?? null,
    project: flag.project,
    enabled: flag.enabled,
    stale: flag.stale ?? false,
    impressionData: flag.impressionData ?? false,
    // SDKs never receive disabled strategies (docs/evaluation.md §1, §0.4).
    strategies: (flag.strategies ?? [])
      .filter((s) => !s.disabled)
      .map((s) => strategyFor(s, segmentConstraints, inlineSegments)),
    variants: flag.variants ?? [],
    // Unleash sends `dependencies` only for a flag that has some.
    ...(flag.dependencies?.length ? { dependencies: flag.dependencies } : {}),
  };
}

function serialise(
  serialised: WeakMap<FlagInput, SerialisedFlag>,
  flag: FlagInput,
  segmentConstraints: Map<number, ConstraintInput[]>,
  inlineSegments: boolean,
): SerialisedFlag {
  let done = serialised.get(flag);
  if (!done) {
    const value = flagFor(flag, segmentConstraints, inlineSegments);
    const text = JSON.stringify(value);
    const digest = createHash('sha256').update(text).digest('base64url');
    done = { value, text, digest, segments: [...new Set(value.strategies.flatMap((s) => s.segments ?? []))] };
    serialised.set(flag, done);
  }
  return done;
}

/**
 * One flag as `/api/client/features` serves it to SDKs of specification 4.2.0+ (segments by id),
 * with its JSON text and the segment ids it uses; made once per engine input object and shared
 * with that endpoint's payloads (the delta API diffs these texts).
 */
export function clientFlag(flag: FlagInput): Readonly<SerialisedFlag> {
  return serialise(plainFlags, flag, new Map(), false);
}

/** Each segment's constraints by id (inlined into strategies for SDKs without segment support). */
const segmentConstraintsOf = (input: SnapshotInput) =>
  new Map((input.segments ?? []).map((s) => [s.id, s.constraints ?? []]));

/**
 * One flag of the token's scope as its payload shows it (`GET /api/client/features/:name`), found
 * by name without making the whole payload; undefined when the scope does not hold it.
 */
export function clientFlagIn(
  config: Configuration,
  scope: { projects: string[]; environment: string },
  inlineSegments: boolean,
  name: string,
): ClientFlag | undefined {
  const environment = config.environment(scope.environment);
  const flag = environment.sources.get(name)?.input;
  if (!flag) return undefined;
  if (!scope.projects.includes('*') && !scope.projects.includes(flag.project ?? '')) return undefined;
  const serialised = inlineSegments ? inlinedFlags : plainFlags;
  return serialise(serialised, flag, segmentConstraintsOf(environment.input), inlineSegments).value;
}

/**
 * The flags of the token's projects in its environment, in the Unleash client format. Older SDKs
 * (no segment support) get each segment's constraints inlined before the strategy's own.
 */
export function buildClientPayload(
  config: Configuration,
  scope: { projects: string[]; environment: string },
  inlineSegments: boolean,
  namePrefix?: string,
): ClientPayload {
  const input = config.environment(scope.environment).input;
  const all = scope.projects.includes('*');
  const wanted = new Set(scope.projects);
  const segmentConstraints = segmentConstraintsOf(input);
  const serialised = inlineSegments ? inlinedFlags : plainFlags;
  const features: ClientFlag[] = [];
  const flags: SerialisedFlag[] = [];
  for (const flag of input.features) {
    if (!all && !wanted.has(flag.project ?? '')) continue;
    if (namePrefix !== undefined && !flag.name.startsWith(namePrefix)) continue;
    const done = serialise(serialised, flag, segmentConstraints, inlineSegments);
    features.push(done.value);
    flags.push(done);
  }
  const used = new Set<number>();
  for (const flag of flags) for (const id of flag.segments) used.add(id);
  const segments = (input.segments ?? [])
    .filter((s) => used.has(s.id))
    .map((s) => ({ id: s.id, name: s.name, constraints: s.constraints ?? [] }));
  // Everything but the flags, with `"features":[]` to be filled with their serialised text: the
  // same text JSON.stringify makes of the whole.
  const rest = JSON.stringify({
    version: 2,
    features: [],
    ...(inlineSegments ? {} : { segments }),
    query: {
      environment: scope.environment,
      ...(all ? {} : { project: [...wanted].sort() }),
      ...(namePrefix === undefined ? {} : { namePrefix }),
      inlineSegmentConstraints: inlineSegments,
    },
  });
  // The ETag identifies the content without `meta.revisionId`: a change outside the token's scope
  // (another environment or project) leaves it as it was and the SDK keeps getting 304. It is
  // made from the flags' own digests, so a 304 never needs the body, which is joined on first use.
  const hash = createHash('sha256').update(rest);
  for (const flag of flags) hash.update(flag.digest);
  const tag = hash.digest('base64url').slice(0, 32);
  const etag = `"${tag}"`;
  let body: string | undefined;
  let gzipped: Buffer | undefined;
  let bytes: Buffer | undefined;
  const text = () => {
    // A function, so that `$` sequences in the flags' text are never read as replacement patterns;
    // `meta.revisionId` last, where JSON.stringify would put it.
    if (body === undefined) {
      const joined = rest.replace(
        '"features":[]',
        () => `"features":[${flags.map((f) => f.text).join(',')}]`,
      );
      body = `${joined.slice(0, -1)},"meta":${JSON.stringify({ revisionId: config.revision })}}`;
    }
    return body;
  };
  return {
    features,
    get body() {
      return text();
    },
    bytes: () => {
      bytes ??= Buffer.from(text());
      return bytes;
    },
    etag,
    gzipEtag: `"${tag}-gzip"`,
    gzipped: () => {
      gzipped ??= gzipSync(text());
      return gzipped;
    },
  };
}

/** The validator headers of a client-API answer (200 and 304 alike) for one representation. */
export const validatorHeaders = (etag: string) => ({
  etag,
  vary: 'Accept-Encoding',
  'cache-control': 'no-cache',
});

/** Whether the client accepts a gzip-encoded answer (`Accept-Encoding`, q=0 excluded). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  // What SDKs that compress send (Node's unleash-client, Go, Java): decided without parsing.
  if (header === 'gzip') return true;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    return coding?.trim().toLowerCase() === 'gzip' && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

/** Whether an If-None-Match header names this ETag (lists and weak forms included). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  // What SDKs send: the one ETag they were given, as it was given.
  if (header === etag) return true;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
}

/**
 * Sends the payload's JSON text, or its gzip copy, as it is. Fastify sends a string or a Buffer
 * without running the route's response serializer, so the body is exactly the pre-serialised one;
 * the reply is taken untyped because the route's schema describes the JSON, not these bytes.
 */
export function sendSerialised(reply: FastifyReply, payload: ClientPayload, gzip: boolean) {
  reply.type('application/json; charset=utf-8');
  if (gzip) return reply.header('Content-Encoding', 'gzip').send(payload.gzipped());
  return reply.send(payload.bytes());
}
