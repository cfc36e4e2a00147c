import type { Principal } from '../../platform/http/auth.js';
import { notFound } from '../../platform/http/errors.js';
import { projectsKey, type SdkPorts, sdkScope } from '../client-api/index.js';
import type { Configuration } from '../snapshot/index.js';
import { frontendContext } from './frontend-api.context.js';
import {
  evaluateScope,
  type FrontendAnswer,
  type FrontendScope,
  frontendScope,
  heldUntil,
} from './frontend-api.payload.js';

/** As for the client API: a change reaches frontend SDKs within about this (ADR 0007 addendum). */
export const SDK_STALENESS_MS = 200;

const scopeOf = sdkScope;

/**
 * The flags of the token's projects and environment that are enabled for the context, evaluated
 * on the in-memory compiled snapshot: no database query. An answer that cannot change for the
 * same context (a session id given, no random draw) is kept with the environment snapshot and
 * served again until a change touches that environment or the clock crosses a date constraint's
 * bound. `sent`: the context as the request spelled it (a query string with a session id), a
 * cheaper key for the same context, so a kept answer is found without building the context.
 */
export function frontendFeatures(
  ports: Pick<SdkPorts, 'configuration' | 'now'>,
  principal: Principal,
  raw: () => Record<string, unknown>,
  clientIp: string,
  sent?: string,
  includeDisabled = false,
): FrontendResult | Promise<FrontendResult> {
  // Nearly always current: answered without a promise (thousands of polls a second).
  const config = ports.configuration.peek(SDK_STALENESS_MS);
  if (config) return answerFrom(config, ports.now, principal, raw, clientIp, sent, includeDisabled);
  return ports.configuration
    .get({ within: SDK_STALENESS_MS })
    .then((loaded) => answerFrom(loaded, ports.now, principal, raw, clientIp, sent, includeDisabled));
}

export interface FrontendResult {
  answer: FrontendAnswer;
  kept: boolean;
}

function answerFrom(
  config: Configuration,
  clock: () => Date,
  principal: Principal,
  raw: () => Record<string, unknown>,
  clientIp: string,
  sent: string | undefined,
  includeDisabled: boolean,
): FrontendResult {
  const { snapshot, scope, environment } = scopeFor(config, principal, includeDisabled);
  // The request's address is part of the context when none is given: part of the key too.
  const sentKey = sent === undefined ? undefined : `${clientIp}|${sent}`;
  const now = clock();
  const time = now.getTime();
  let answer = keptFor(scope, sentKey, time);
  if (answer) return { answer, kept: true };
  const { context, key } = frontendContext(raw(), { environment, remoteAddress: clientIp });
  answer = keptFor(scope, key, time);
  if (answer) return { answer, kept: true };
  const evaluated = evaluateScope(scope, snapshot.compiled, context, now);
  if (key === undefined || evaluated.random) return { answer: evaluated.answer, kept: false };
  const until = heldUntil(scope, time, context.currentTime !== undefined);
  scope.answers.set(sentKey ?? key, { answer: evaluated.answer, until });
  return { answer: evaluated.answer, kept: true };
}

/** The token's scope in its environment's snapshot, built once per snapshot. */
function scopeFor(config: Configuration, principal: Principal, includeDisabled: boolean) {
  const { projects, environment } = scopeOf(principal);
  const snapshot = config.environment(environment);
  const memoKey = `${includeDisabled ? 'frontend-all' : 'frontend'}|${projectsKey(projects)}`;
  const scope = snapshot.memo<FrontendScope>(memoKey, () =>
    frontendScope(snapshot, projects, includeDisabled),
  );
  return { snapshot, scope, environment };
}

/**
 * The answer `frontendFeatures` keeps for a request spelled exactly so (the client's address and
 * the query string, `sent`), if one holds at `time` (ms): what a repeated request is answered
 * from before routing (frontend-api.early.ts). Undefined when the route has to work it out.
 */
export function keptFrontendAnswer(
  config: Configuration,
  principal: Principal,
  clientIp: string,
  sent: string,
  includeDisabled: boolean,
  time: number,
): FrontendAnswer | undefined {
  return keptFor(scopeFor(config, principal, includeDisabled).scope, `${clientIp}|${sent}`, time);
}

/** The answer kept for `key` while it holds at `time` (ms), if any. */
function keptFor(scope: FrontendScope, key: string | undefined, time: number): FrontendAnswer | undefined {
  const kept = key === undefined ? undefined : scope.answers.get(key);
  return kept && time < kept.until ? kept.answer : undefined;
}

/** One flag of the answer; 404 when it is not enabled for the context (or not in the scope). */
export async function frontendFeature(
  ports: Pick<SdkPorts, 'configuration' | 'now'>,
  principal: Principal,
  raw: () => Record<string, unknown>,
  clientIp: string,
  name: string,
) {
  const { answer } = await frontendFeatures(ports, principal, raw, clientIp);
  const toggle = answer.toggles.find((t) => t.name === name);
  if (!toggle) throw notFound(`Could not find feature flag with name ${name}`);
  return toggle;
}

/** Frontend SDK usage counts, stored as the client API stores them, in the token's environment. */
export async function recordFrontendMetrics(
  { reporting }: Pick<SdkPorts, 'reporting'>,
  principal: Principal,
  body: {
    appName: string;
    bucket?: { start: string; toggles: Record<string, { yes: number; no: number }> } | null;
  },
) {
  if (!body.bucket) return; // impact metrics only: nothing this service keeps
  await reporting.metrics(principal, { appName: body.appName, bucket: body.bucket }, undefined, 'frontend');
}

/** A frontend SDK announcing itself: the application and instance, in the token's environment. */
export async function registerFrontendClient(
  { reporting }: Pick<SdkPorts, 'reporting'>,
  principal: Principal,
  body: { appName: string; instanceId?: string; sdkVersion?: string; strategies: string[] },
  clientIp: string,
) {
  await reporting.register(
    principal,
    {
      appName: body.appName,
      instanceId: body.instanceId ?? 'default',
      ...(body.sdkVersion === undefined ? {} : { sdkVersion: body.sdkVersion }),
      strategies: body.strategies,
    },
    clientIp,
    'frontend',
  );
}
