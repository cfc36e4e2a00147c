import type { Config } from '../../config.js';
import type { Principal } from '../../platform/http/auth.js';
import type { ConfigurationSource } from '../snapshot/index.js';

/** An SDK announcing itself (backend `/api/client/register`, frontend `/client/register`). */
export interface Registration {
  appName: string;
  instanceId: string;
  sdkVersion?: string;
  strategies?: string[];
}

/** One bucket of an SDK's usage counts. */
export interface UsageReport {
  appName: string;
  instanceId?: string;
  bucket: {
    start: string;
    toggles: Record<string, { yes: number; no: number; variants?: Record<string, number> }>;
  };
}

/** `frontend` for browser and mobile SDKs (frontend API); backend SDKs give `null`. */
export type SdkType = 'frontend' | null;

/**
 * Where what SDKs report goes: this service's database (`databaseReporting`), or, in edge mode,
 * the upstream service (src/edge/).
 */
export interface SdkReporting {
  register(principal: Principal, body: Registration, clientIp: string, sdkType: SdkType): Promise<void>;
  metrics(
    principal: Principal,
    body: UsageReport,
    clientIp: string | undefined,
    sdkType: SdkType,
  ): Promise<void>;
}

/**
 * What the SDK-facing routes (client API, delta and streaming, frontend API, OFREP) stand on. The
 * service provides it from its database; an edge replica from its upstream. None of these routes
 * touches a database itself.
 */
export interface SdkPorts {
  config: Config;
  now: () => Date;
  configuration: ConfigurationSource;
  reporting: SdkReporting;
  /**
   * The origins the frontend API's and OFREP's CORS allow, read on every request: an array when
   * known at once, a promise when they must be read.
   */
  origins: () => string[] | Promise<string[]>;
  /** Whether an SDK token is still valid: an open stream ends when its token is deleted. */
  tokenValid: (secret: string) => Promise<boolean>;
}

/** A token's scope; an SDK principal always has one (admins reading SDK paths get all projects). */
export function sdkScope(principal: Principal) {
  return principal.scope ?? { projects: ['*'], environment: 'default' };
}

/**
 * A scope's projects as one key (the names sorted), made once per projects array: a cached token's
 * principal keeps its array, so an SDK request sorts nothing.
 */
const projectKeys = new WeakMap<readonly string[], string>();
export function projectsKey(projects: readonly string[]): string {
  let key = projectKeys.get(projects);
  if (key === undefined) {
    key = [...projects].sort().join(',');
    projectKeys.set(projects, key);
  }
  return key;
}
