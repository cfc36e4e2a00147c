import { createHash } from 'node:crypto';
import { decideFlag, type EvaluationEnv } from '../../evaluation/index.js';
import type { Principal } from '../../platform/http/auth.js';
import { type SdkPorts, sdkScope } from '../client-api/index.js';
import { SDK_STALENESS_MS } from '../frontend-api/index.js';
import { ofrepContext } from './ofrep.context.js';
import { type OfrepResult, type OfrepScope, ofrepResult, ofrepScope, withValue } from './ofrep.payload.js';

const scopeOf = sdkScope;
type Ports = Pick<SdkPorts, 'configuration' | 'now'>;

/**
 * The token's flags in its environment, from the in-memory configuration (at most
 * SDK_STALENESS_MS old, as the client and frontend APIs read it): no database query.
 */
async function load({ configuration, now }: Ports, principal: Principal) {
  const config = await configuration.get({ within: SDK_STALENESS_MS });
  const { projects, environment } = scopeOf(principal);
  const snapshot = config.environment(environment);
  const scope = snapshot.memo<OfrepScope>(`ofrep|${[...projects].sort().join(',')}`, () =>
    ofrepScope(snapshot, projects),
  );
  const env: EvaluationEnv = { now: now(), random: Math.random };
  return { snapshot, scope, environment, env };
}

/**
 * One flag for the context, always with a value (`withValue`); `undefined` when the token's scope
 * has no such flag.
 */
export async function evaluateOfrepFlag(
  ports: Ports,
  principal: Principal,
  key: string,
  raw: Record<string, unknown>,
): Promise<OfrepResult | undefined> {
  const { snapshot, scope, environment, env } = await load(ports, principal);
  const flag = scope.byName.get(key);
  if (!flag) return undefined;
  const context = ofrepContext(raw, environment);
  return withValue(flag, ofrepResult(flag, decideFlag(snapshot.compiled, key, context, env)));
}

/** A bulk answer as sent: its body and a strong ETag made from it. */
export interface OfrepBulkAnswer {
  bytes: Buffer;
  etag: string;
}

/**
 * Every flag of the token's scope (off ones too: a missing boolean flag would silently take the
 * application's default, which may be true) for the context, by name. The ETag is a hash of the
 * body, so it changes exactly when an answer for this context does.
 */
export async function evaluateOfrepFlags(
  ports: Ports,
  principal: Principal,
  raw: Record<string, unknown>,
): Promise<OfrepBulkAnswer> {
  const { snapshot, scope, environment, env } = await load(ports, principal);
  const context = ofrepContext(raw, environment);
  const compiled = snapshot.compiled;
  const flags = scope.flags.map((flag) => ofrepResult(flag, decideFlag(compiled, flag.name, context, env)));
  const bytes = Buffer.from(JSON.stringify({ flags, metadata: { environment } }));
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
  return { bytes, etag };
}
