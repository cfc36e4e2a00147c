import { describe, expect, it } from 'vitest';
import { diffEvent } from './FlagHistory';
import { summarize, usageByEnvironment } from './FlagMetrics';

describe('diffEvent (preData → data, per top-level key)', () => {
  it('lists changed keys only, values as JSON', () => {
    expect(
      diffEvent(
        { name: 'a', description: 'old', parameters: { rollout: '10' } },
        { name: 'a', description: 'new', parameters: { rollout: '50' } },
      ),
    ).toEqual([
      { key: 'description', before: '"old"', after: '"new"' },
      { key: 'parameters', before: '{"rollout":"10"}', after: '{"rollout":"50"}' },
    ]);
  });
  it('shows added and removed keys with no value on the other side, leaving out empty ones', () => {
    expect(diffEvent(null, { name: 'a', title: null, segments: [] })).toEqual([
      { key: 'name', before: undefined, after: '"a"' },
    ]);
    expect(diffEvent({ feature: 'p' }, null)).toEqual([{ key: 'feature', before: '"p"', after: undefined }]);
  });
  it('keeps an emptied value that was there before', () => {
    expect(diffEvent({ variants: ['x'] }, { variants: [] })).toEqual([
      { key: 'variants', before: '["x"]', after: '[]' },
    ]);
  });
});

describe('usageByEnvironment (48 hourly slots ending with the current hour)', () => {
  const now = Date.parse('2026-01-02T10:30:00Z');
  const row = (environment: string, timestamp: string, yes: number, no: number, variants = {}) => ({
    appName: 'web',
    environment,
    timestamp,
    yes,
    no,
    variants,
  });
  it('sums applications per hour and environment, and drops hours outside the window', () => {
    const [dev, prod, ...rest] = usageByEnvironment(
      [
        row('development', '2026-01-02T10:00:00Z', 3, 1, { blue: 2 }),
        row('development', '2026-01-02T10:00:00Z', 4, 2, { blue: 1, red: 5 }),
        row('development', '2025-12-31T11:00:00Z', 1, 0),
        row('development', '2025-12-31T10:00:00Z', 100, 100),
        row('production', '2026-01-02T09:00:00Z', 0, 5),
        row('staging', '2026-01-02T09:00:00Z', 0, 0),
      ],
      now,
    );
    expect(rest).toEqual([]);
    expect(dev?.hours).toHaveLength(48);
    expect(dev?.hours[47]).toEqual({ start: Date.parse('2026-01-02T10:00:00Z'), yes: 7, no: 3 });
    expect(dev?.hours[0]).toEqual({ start: Date.parse('2025-12-31T11:00:00Z'), yes: 1, no: 0 });
    expect(dev?.variants).toEqual([
      ['red', 5],
      ['blue', 3],
    ]);
    expect(summarize(dev!)).toBe('8 enabled, 3 not enabled (73% enabled)');
    expect(prod && summarize(prod)).toBe('0 enabled, 5 not enabled (0% enabled)');
  });
});
