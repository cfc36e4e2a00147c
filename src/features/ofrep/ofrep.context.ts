import type { EvaluationContext } from '../../evaluation/index.js';

/** Context fields Unleash keeps at the top level; `environment` is the token's, never the body's. */
const TOP_LEVEL = ['userId', 'sessionId', 'remoteAddress', 'appName', 'currentTime'] as const;

/** A property value as Unleash holds it: text; numbers and booleans as text, anything else left out. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * The Unleash context of an OpenFeature context: `userId` is `userId` if given, else
 * `targetingKey` (which is also the property `targetingKey`, so a constraint can name it);
 * `sessionId`, `remoteAddress`, `appName`, `currentTime` stay fields; the entries of `properties`
 * and every other key become properties (a `properties` entry wins). The environment is the token's.
 * No random session id is made up: without `userId` or `sessionId`, a rollout draws at random,
 * as an Unleash SDK does.
 */
export function ofrepContext(raw: Record<string, unknown>, environment: string): EvaluationContext {
  const properties: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'properties' || key === 'environment' || (TOP_LEVEL as readonly string[]).includes(key))
      continue;
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
  const context: EvaluationContext = { environment, properties };
  for (const field of TOP_LEVEL) {
    const value = text(raw[field]);
    if (value) context[field] = value;
  }
  const targetingKey = text(raw.targetingKey);
  if (context.userId === undefined && targetingKey) context.userId = targetingKey;
  return context;
}
