import { describe, expect, it } from 'vitest';
import { steps } from './LifecycleStepper';
import { dailySeries, level } from './StatusCharts';
import {
  describeParameters,
  initialParameters,
  parameterProblems,
  parametersPayload,
  type StrategyDefinition,
} from './StrategyParameters';

const custom: StrategyDefinition = {
  name: 'byRegion',
  editable: true,
  deprecated: false,
  parameters: [
    { name: 'regions', type: 'list', description: '', required: true },
    { name: 'share', type: 'percentage', description: '', required: false },
    { name: 'limit', type: 'number', description: '', required: false },
    { name: 'beta', type: 'boolean', description: '', required: false },
    { name: 'note', type: 'string', description: '', required: false },
  ],
};

describe('strategy parameters', () => {
  it('starts from defaults, or from the stored values', () => {
    expect(initialParameters(custom, undefined, 'f')).toEqual({
      regions: '',
      share: '100',
      limit: '',
      beta: 'false',
      note: '',
    });
    expect(initialParameters(custom, { regions: 'eu', share: '5' }, 'f')).toMatchObject({
      regions: 'eu',
      share: '5',
    });
  });
  it('reports a missing required list, a non-number and a percentage out of range', () => {
    expect(parameterProblems(custom, { regions: ' , ', share: '120', limit: 'x' })).toEqual({
      regions: 'Required.',
      share: 'Must be between 0 and 100.',
      limit: 'Must be a number.',
    });
    expect(parameterProblems(custom, { regions: 'eu', share: '0', limit: '' })).toEqual({});
  });
  it('sends strings: lists trimmed and comma-joined, booleans true/false, undeclared stored ones kept', () => {
    expect(
      parametersPayload(
        custom,
        { regions: 'eu , us,', share: '30', limit: '7', beta: 'true', note: ' hi ' },
        { legacy: 'x', share: '1' },
      ),
    ).toEqual({ legacy: 'x', regions: 'eu,us', share: '30', limit: '7', beta: 'true', note: 'hi' });
  });
  it('describes a strategy in one line per parameter with a value', () => {
    const strategy = {
      id: '1',
      name: 'byRegion',
      constraints: [],
      parameters: { regions: 'eu,us', share: '30', beta: 'false', note: '' },
    };
    expect(describeParameters(strategy, custom)).toEqual(['Regions: eu, us', 'Share 30%', 'Beta: no']);
    expect(
      describeParameters({ ...strategy, name: 'flexibleRollout', parameters: { rollout: '25' } }),
    ).toEqual(['Rollout 25%']);
  });
});

describe('lifecycle steps', () => {
  it('marks stages done, skipped, current and not reached', () => {
    const at = '2026-01-01T00:00:00Z';
    const result = steps([
      { stage: 'initial', enteredStageAt: at },
      { stage: 'live', enteredStageAt: at },
      { stage: 'completed', status: 'kept', enteredStageAt: at },
    ]);
    expect(result.map((s) => s.state)).toEqual(['done', 'skipped', 'done', 'current', 'ahead']);
    expect(result[3]?.entry?.status).toBe('kept');
  });
});

describe('activity series', () => {
  it('fills a year of UTC days, oldest first, summing duplicates', () => {
    const series = dailySeries(
      [
        { date: '2026-03-10', count: 2 },
        { date: '2026-03-10T00:00:00.000Z', count: 1 },
        { date: '2025-01-01', count: 9 },
      ],
      Date.parse('2026-03-10T23:00:00Z'),
    );
    expect(series).toHaveLength(365);
    expect(series.at(-1)).toEqual({ date: '2026-03-10', count: 3 });
    expect(series[0]?.date).toBe('2025-03-11');
    expect(series.reduce((n, d) => n + d.count, 0)).toBe(3);
  });
  it('levels: 0 for none, 1-4 by share of the busiest day', () => {
    expect([0, 1, 5, 10].map((c) => level(c, 10))).toEqual([0, 1, 2, 4]);
  });
});
