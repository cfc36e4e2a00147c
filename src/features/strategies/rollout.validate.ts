import type { ErrorDetail } from '../../platform/http/errors.js';

/**
 * The percentage parameter of each built-in rollout strategy. SDKs read it with `Number(...)`, so
 * `"1e400"` (Infinity), `"-5"`, `"0x10"` or `""` would each mean something nobody meant to write.
 */
const PERCENTAGE_PARAMETER: Record<string, string> = {
  flexibleRollout: 'rollout',
  gradualRolloutUserId: 'percentage',
  gradualRolloutSessionId: 'percentage',
  gradualRolloutRandom: 'percentage',
};

/**
 * A number from 0 to 100 in plain decimal: digits with an optional fraction (`"50"`, `"50.5"`,
 * `"100.0"`), no sign, exponent, hexadecimal, space or empty text. Unleash takes any string here
 * (its schema says only "string"); the values its UI writes, whole numbers 0 to 100, all pass.
 */
const PLAIN_DECIMAL = /^\d{1,3}(\.\d{1,10})?$/;

export function isPercentage(value: string): boolean {
  return PLAIN_DECIMAL.test(value) && Number(value) <= 100;
}

/**
 * The problem with a strategy's rollout percentage, if any (a 400 on every path that writes
 * strategies). An absent parameter is not checked: the SDK then evaluates the strategy as off, as
 * it always did. Stored strategies are never re-checked, so evaluation stays as the SDK's.
 */
export function rolloutProblems(
  name: string,
  parameters: Record<string, string> | undefined,
  base: string,
): ErrorDetail[] {
  const key = PERCENTAGE_PARAMETER[name];
  const value = key === undefined ? undefined : parameters?.[key];
  if (key === undefined || value === undefined || isPercentage(value)) return [];
  return [
    {
      path: `${base}/parameters/${key}`,
      message: `The ${name} parameter "${key}" must be a number from 0 to 100 in plain decimal form (such as "50"), not ${JSON.stringify(value.slice(0, 20))}.`,
    },
  ];
}
