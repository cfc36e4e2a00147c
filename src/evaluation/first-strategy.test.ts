import { describe, expect, it } from 'vitest';
import { compileSnapshot, evaluateFlag } from './index.js';

// Found by the real-SDK agreement test: the SDK stops at the first enabled strategy.
describe('variant of a flag with several enabled strategies', () => {
  const variants = [{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }];
  const env = { now: new Date('2026-01-01T00:00:00Z'), random: () => 0.5 };

  it.each([
    [
      'the first has none: flag-level variants apply (none here)',
      [{ name: 'default' }, { name: 'default', variants }],
      'disabled',
    ],
    ['the first has variants: its variant wins', [{ name: 'default', variants }, { name: 'default' }], 'a'],
    [
      'a disabled first strategy is skipped',
      [
        { name: 'default', disabled: true },
        { name: 'default', variants },
      ],
      'a',
    ],
  ])('%s', (_label, strategies, expected) => {
    const snapshot = compileSnapshot({ features: [{ name: 'f', enabled: true, strategies }] });
    const result = evaluateFlag(snapshot, 'f', { userId: 'u1' }, env);
    expect(result?.isEnabled).toBe(true);
    expect(result?.variant).toMatchObject({ name: expected, feature_enabled: true });
  });
});
