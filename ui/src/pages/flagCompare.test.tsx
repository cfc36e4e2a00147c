import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { keys } from '../queries';
import type { Flag, FlagEnvironment, Strategy } from '../types';
import { CompareTable, FlagCompare } from './FlagCompare';
import { copyBody } from './FlagCopyStrategies';
import { compareEnvironments, describeRow, strategyDifferences } from './flagCompare';
import { definitionsKey } from './StrategyParameters';

const strategy = (id: string, over: Partial<Strategy> = {}): Strategy => ({
  id,
  name: 'flexibleRollout',
  title: null,
  disabled: false,
  sortOrder: 0,
  constraints: [],
  segments: [],
  parameters: { rollout: '50', stickiness: 'default', groupId: 'f' },
  variants: [],
  ...over,
});
const env = (name: string, enabled: boolean, strategies: Strategy[]): FlagEnvironment => ({
  name,
  enabled,
  type: name,
  strategies,
});
const beta = { contextName: 'userId', operator: 'IN', values: ['b', 'a'] };

describe('compareEnvironments', () => {
  it('pairs identical strategies whatever their ids, order of constraint values and defaults', () => {
    const left = env('development', true, [strategy('1', { constraints: [beta] })]);
    const right = env('production', true, [
      strategy('2', {
        constraints: [{ ...beta, values: ['a', 'b'], inverted: false, caseInsensitive: false }],
        title: '',
      }),
    ]);
    const c = compareEnvironments(left, right);
    expect(c.identical).toBe(true);
    expect(c.enabled).toEqual({ left: true, right: true, differs: false });
    expect(c.strategies).toEqual([
      { left: left.strategies[0], right: right.strategies[0], status: 'same', differences: [] },
    ]);
  });

  it('reports on/off, a strategy in one only, and the fields in which paired ones differ', () => {
    const left = env('development', true, [
      strategy('a', { sortOrder: 0, parameters: { rollout: '50', stickiness: 'default', groupId: 'f' } }),
      strategy('b', { sortOrder: 1, name: 'userWithId', parameters: { userIds: 'x' }, constraints: [beta] }),
      strategy('c', { sortOrder: 2, name: 'default', parameters: {}, segments: [3, 1] }),
    ]);
    const right = env('production', false, [
      strategy('z', { sortOrder: 0, name: 'default', parameters: {}, segments: [1, 3] }),
      strategy('y', {
        sortOrder: 1,
        parameters: { rollout: '10', stickiness: 'default', groupId: 'f' },
        variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }],
      }),
      strategy('x', { sortOrder: 2, name: 'remoteAddress', parameters: { IPs: '10.0.0.1' } }),
    ]);
    const c = compareEnvironments(left, right);
    expect(c.identical).toBe(false);
    expect(c.enabled.differs).toBe(true);
    expect(c.strategies.map((r) => [r.left?.id, r.right?.id, r.status, r.differences])).toEqual([
      ['a', 'y', 'different', ['parameters', 'variants']],
      ['b', undefined, 'only-left', []],
      ['c', 'z', 'same', []],
      [undefined, 'x', 'only-right', []],
    ]);
    expect(c.strategies.map((r) => describeRow(r, 'development', 'production'))).toEqual([
      'Different: parameters, variants',
      'Only in development',
      'Same',
      'Only in production',
    ]);
  });

  it('prefers the strategy with the same title, then the fewest differences', () => {
    const left = env('a', true, [strategy('l', { title: 'Beta', constraints: [beta] })]);
    const right = env('b', true, [
      strategy('r1', { constraints: [beta], disabled: true }),
      strategy('r2', { title: 'Beta', parameters: { rollout: '1', stickiness: 'default', groupId: 'f' } }),
    ]);
    const [first] = compareEnvironments(left, right).strategies;
    expect(first?.right?.id).toBe('r2');
    expect(first?.differences).toEqual(['parameters', 'constraints']);
    expect(strategyDifferences(strategy('p'), strategy('q', { disabled: null, title: ' ' }))).toEqual([]);
  });
});

describe('copyBody', () => {
  it('keeps what a strategy does and leaves out ids, the flag name and the order', () => {
    const s = {
      ...strategy('1', {
        title: 'Beta',
        disabled: true,
        sortOrder: 4,
        constraints: [{ ...beta, inverted: true }],
        segments: [7],
        variants: [
          {
            name: 'v',
            weight: 1000,
            weightType: 'fix',
            stickiness: 'userId',
            payload: { type: 'string', value: 'x' },
          },
        ],
      }),
      featureName: 'f',
    };
    expect(copyBody(s)).toEqual({
      name: 'flexibleRollout',
      title: 'Beta',
      disabled: true,
      parameters: { rollout: '50', stickiness: 'default', groupId: 'f' },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['b', 'a'], inverted: true }],
      segments: [7],
      variants: [
        {
          name: 'v',
          weight: 1000,
          weightType: 'fix',
          stickiness: 'userId',
          payload: { type: 'string', value: 'x' },
        },
      ],
    });
  });
});

const names = {
  typeName: (n: string) => (n === 'flexibleRollout' ? 'Gradual rollout' : n),
  definitionOf: () => undefined,
  segmentName: (id: number) => (id === 1 ? 'beta-users' : `#${id}`),
};

describe('CompareTable', () => {
  it('shows both environments side by side and marks what differs', () => {
    const left = env('development', true, [
      strategy('a', { constraints: [beta], segments: [1] }),
      strategy('b', { name: 'default', parameters: {}, sortOrder: 1 }),
    ]);
    const right = env('production', false, [strategy('c', { constraints: [] })]);
    render(
      <MantineProvider env="test">
        <CompareTable left={left} right={right} names={names} />
      </MantineProvider>,
    );
    const table = screen.getByRole('table', { name: 'Comparison of development and production' });
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual(['What', 'development', 'production', 'Difference']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getByRole('rowheader').textContent)).toEqual([
      'Enabled',
      'Strategy: Gradual rollout',
      'Strategy: default',
    ]);
    const [enabled, rollout, fallback] = rows as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(enabled).getByText('On')).toBeTruthy();
    expect(within(enabled).getByText('Off')).toBeTruthy();
    expect(within(enabled).getByText('Different')).toBeTruthy();
    expect(rollout.getAttribute('data-status')).toBe('different');
    expect(within(rollout).getByText('Different: constraints, segments')).toBeTruthy();
    // The changed lines are marked on the side that has them, the missing ones on the other.
    expect(within(rollout).getByText('Constraint: userId is one of b, a').getAttribute('data-changed')).toBe(
      'true',
    );
    expect(within(rollout).getByText('Segments: beta-users').getAttribute('data-changed')).toBe('true');
    expect(within(rollout).getByText('No constraints')).toBeTruthy();
    expect(within(rollout).getAllByText('Rollout 50%')[0]?.getAttribute('data-changed')).toBeNull();
    expect(within(fallback).getByText('Only in development')).toBeTruthy();
    expect(within(fallback).getByText('None')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('3 differences between development and production.');
  });

  it('says when two environments are the same', () => {
    render(
      <MantineProvider env="test">
        <CompareTable
          left={env('development', false, [strategy('a')])}
          right={env('production', false, [strategy('b')])}
          names={names}
        />
      </MantineProvider>,
    );
    expect(screen.getByRole('status').textContent).toBe('development and production are the same.');
    expect(screen.getAllByText('Same', { selector: 'td' })).toHaveLength(2);
  });
});

describe('FlagCompare', () => {
  it('is closed until asked for, then compares the first two environments', () => {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Number.POSITIVE_INFINITY } } });
    client.setQueryData(keys.segments, []);
    client.setQueryData(definitionsKey, []);
    const flag: Flag = {
      name: 'f',
      type: 'release',
      project: 'p',
      stale: false,
      impressionData: false,
      createdAt: '2026-01-01T00:00:00Z',
      environments: [env('development', true, [strategy('a')]), env('production', true, [])],
    };
    render(
      <MantineProvider env="test">
        <QueryClientProvider client={client}>
          <FlagCompare flag={flag} />
        </QueryClientProvider>
      </MantineProvider>,
    );
    expect(screen.queryByRole('table')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Compare environments' }));
    const table = screen.getByRole('table', { name: 'Comparison of development and production' });
    expect(within(table).getByText('Only in development')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Hide comparison' }).getAttribute('aria-expanded')).toBe(
      'true',
    );
  });
});
