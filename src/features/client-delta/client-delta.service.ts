import type { Principal } from '../../platform/http/auth.js';
import { sdkScope } from '../client-api/index.js';
import type { Configuration, ConfigurationSource } from '../snapshot/index.js';
import { type DeltaEvent, type DeltaScope, EnvironmentDelta } from './client-delta.ring.js';

/** As the client API: SDK reads may be this far behind a known newer revision (ADR 0007). */
const SDK_STALENESS_MS = 200;

/** A token's view of the configuration (as the client API's). */
export const scopeOf: (principal: Principal) => DeltaScope = sdkScope;

/** A cursor as SDKs send it: `"123"` in If-None-Match, `123` in Last-Event-ID; else none. */
export function parseCursor(header: string | undefined): number | undefined {
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header ?? '');
  return match ? Number(match[1]) : undefined;
}

/**
 * The delta engine of one instance: an `EnvironmentDelta` per environment some SDK asked for,
 * moved with the configuration cache (which follows NOTIFY from every instance), and listeners
 * told when an environment changed or the revision moved (streams re-check their tokens then).
 */
export class ClientDelta {
  private readonly rings = new Map<string, EnvironmentDelta>();
  private readonly listeners = new Set<(changed: Set<string>) => void>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly configuration: ConfigurationSource,
    private readonly capacity: number,
  ) {}

  stop() {
    this.stopped = true;
    this.unsubscribe?.();
  }

  /** `listener` gets the environments that changed (possibly none) each time the revision moves. */
  onChange(listener: (changed: Set<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private advance(config: Configuration) {
    const changed = new Set<string>();
    for (const ring of this.rings.values()) if (ring.advance(config)) changed.add(ring.environment);
    for (const listener of this.listeners) listener(changed);
  }

  async ring(environment: string): Promise<EnvironmentDelta> {
    const config = await this.configuration.get({ within: SDK_STALENESS_MS });
    // Follows the configuration from the first SDK on: an instance no delta SDK uses pays nothing.
    if (!this.unsubscribe && !this.stopped) {
      this.unsubscribe = this.configuration.subscribe((next) => this.advance(next));
    }
    let ring = this.rings.get(environment);
    if (!ring) {
      ring = new EnvironmentDelta(config, environment, this.capacity);
      this.rings.set(environment, ring);
    }
    return ring;
  }

  /**
   * What an SDK holding `cursor` needs: the events after it in its scope, or a hydration when it
   * has none or the kept changes cannot answer it; `[]` when nothing it sees changed.
   */
  async eventsFor(scope: DeltaScope, cursor: number | undefined): Promise<DeltaEvent[]> {
    const ring = await this.ring(scope.environment);
    return eventsFrom(ring, scope, cursor);
  }
}

export function eventsFrom(ring: EnvironmentDelta, scope: DeltaScope, cursor: number | undefined) {
  const events = cursor === undefined ? undefined : ring.eventsAfter(cursor, scope);
  return events ?? [ring.hydration(scope)];
}

/** The cursor a payload moves its reader to: the last event's id. */
export const cursorOf = (events: DeltaEvent[]) => events.at(-1)?.eventId;
