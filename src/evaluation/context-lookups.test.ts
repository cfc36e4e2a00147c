import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileSnapshot } from './compile.js';
import { decideFlag } from './decide.js';
import { evaluateFlag } from './evaluate.js';
import type { EvaluationContext, SnapshotInput } from './types.js';

/**
 * Golden vectors written by the real Node SDK (scripts/sdk-vectors.mjs): IN_CIDR with prefixed
 * context addresses (IPv4, IPv6, inverted, invalid values), stickiness fields and variant
 * stickiness given only in `properties`, the top-level-only strategies, and a dependent flag.
 * Both the SDK-style path and the playground's report path must give the SDK's answer.
 */
interface Vector {
  description: string;
  state: SnapshotInput;
  flag: string;
  context: EvaluationContext;
  expected: { isEnabled: boolean; variant: string };
}

const { cases } = JSON.parse(
  readFileSync(new URL('../../test/golden/context-lookups.json', import.meta.url), 'utf8'),
) as { cases: Vector[] };
// random() is never reached by a vector (none rests on a random stickiness id); 0.5 is arbitrary.
const env = { now: new Date('2026-01-01T00:00:00Z'), random: () => 0.5 };

describe('context lookups as the Node SDK does them', () => {
  it('has vectors of every kind', () => {
    const kinds = [
      'IN_CIDR',
      'properties.sessionId',
      'properties.userId',
      '2001:db8',
      'inverted',
      'variants',
    ];
    for (const kind of kinds) expect(cases.some((c) => c.description.includes(kind))).toBe(true);
  });

  it.each(cases)('$description', ({ state, flag, context, expected }) => {
    const snapshot = compileSnapshot(state);
    const full = { appName: 'a', ...context };
    const decision = decideFlag(snapshot, flag, full, env);
    const report = evaluateFlag(snapshot, flag, full, env);
    expect({ isEnabled: decision?.isEnabled, variant: decision?.variant.name }).toEqual(expected);
    expect({ isEnabled: report?.isEnabled, variant: report?.variant.name }).toEqual(expected);
  });
});
