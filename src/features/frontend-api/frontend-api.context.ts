import { randomBytes } from 'node:crypto';
import type { EvaluationContext } from '../../evaluation/index.js';

/** Fields kept at the top level of the context; every other name becomes a property. */
const TOP_LEVEL = ['appName', 'environment', 'userId', 'sessionId', 'remoteAddress', 'currentTime'] as const;
const PROPERTY_PARAM = /^properties\[(.+)\]$/;

/** A context value as the SDKs read it: strings as they are, numbers and booleans as text. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * Query parameters as a context object: `properties[name]=value` fills `properties` (as Express'
 * `qs` parses it for Unleash), every other parameter is a field of its own name.
 */
export function contextFromQuery(query: Record<string, string | undefined>): Record<string, unknown> {
  const context: Record<string, unknown> = {};
  let properties: Record<string, string> | undefined;
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const property = PROPERTY_PARAM.exec(key)?.[1];
    if (property === undefined) context[key] = value;
    else {
      properties ??= {};
      properties[property] = value;
    }
  }
  if (properties) context.properties = properties;
  return context;
}

export interface FrontendContext {
  context: EvaluationContext;
  /**
   * The context as text, to find an earlier answer for the same context; absent when the session
   * id was made up for this request (no two such requests share an answer).
   */
  key: string | undefined;
}

/**
 * The evaluation context of a frontend API request, as Unleash builds it (its `createContext` and
 * `enrichContextWithIp`): `appName`, `environment`, `userId`, `sessionId`, `remoteAddress` and
 * `currentTime` stay at the top level, every other field moves into `properties` (where a
 * `properties` entry of the same name wins), and empty values are dropped. Defaults: the token's
 * environment, the request's address, a random session id, and (in the engine) the server time.
 */
export function frontendContext(
  raw: Record<string, unknown>,
  defaults: { environment: string; remoteAddress: string },
): FrontendContext {
  const context: EvaluationContext = {};
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'properties' || (TOP_LEVEL as readonly string[]).includes(key)) continue;
    const value_ = text(value);
    if (value_ !== undefined) properties[key] = value_;
  }
  const given = raw.properties;
  if (given && typeof given === 'object' && !Array.isArray(given)) {
    for (const [key, value] of Object.entries(given)) {
      const value_ = text(value);
      if (value_ !== undefined) properties[key] = value_;
    }
  }
  for (const field of TOP_LEVEL) {
    const value = text(raw[field]);
    if (value) context[field] = value;
  }
  context.environment ??= defaults.environment;
  context.remoteAddress ??= defaults.remoteAddress;
  context.properties = properties;
  const key = context.sessionId === undefined ? undefined : JSON.stringify(context);
  context.sessionId ??= randomBytes(18).toString('hex');
  return { context, key };
}
