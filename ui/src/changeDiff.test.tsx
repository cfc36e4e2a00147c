import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ChangeDiff, sidesOf } from './changeDiff';
import { renderWithContext } from './test-utils';
import type { Flag } from './types';

const strategy = { id: 's1', name: 'flexibleRollout', title: null, parameters: { rollout: '10' } };

describe('a proposed change as a diff', () => {
  it('shows a strategy edit as the lines it changes, against what it was made against', () => {
    const sides = sidesOf(
      {
        action: 'updateStrategy',
        payload: { id: 's1', name: 'flexibleRollout', parameters: { rollout: '50' }, snapshot: strategy },
      },
      'production',
    );
    expect(sides).toEqual({
      before: strategy,
      after: { ...strategy, parameters: { rollout: '50' } },
    });
    renderWithContext(<ChangeDiff sides={sides as never} label="Diff" />);
    const diff = screen.getByLabelText('Diff');
    expect([...diff.querySelectorAll('del')].map((d) => d.textContent)).toEqual(['-     "rollout": "10"']);
    expect([...diff.querySelectorAll('ins')].map((d) => d.textContent)).toEqual(['+     "rollout": "50"']);
    expect(diff.textContent).toContain('"title": null');
  });

  it('compares a switch with the flag as it is now, and shows an addition or removal whole', () => {
    const flag = { environments: [{ name: 'production', enabled: false }] } as unknown as Flag;
    expect(sidesOf({ action: 'updateEnabled', payload: { enabled: true } }, 'production', flag)).toEqual({
      before: { enabled: false },
      after: { enabled: true },
    });
    // Without the flag (still loading), there is nothing to compare yet.
    expect(sidesOf({ action: 'updateEnabled', payload: { enabled: true } }, 'production')).toBeUndefined();
    expect(
      sidesOf({ action: 'deleteStrategy', payload: { id: 's1', snapshot: strategy } }, 'production'),
    ).toEqual({
      before: strategy,
      after: null,
    });
    renderWithContext(<ChangeDiff sides={{ before: null, after: { name: 'default' } }} label="Added" />);
    expect(screen.getByLabelText('Added').querySelectorAll('del')).toHaveLength(0);
    expect(screen.getByLabelText('Added').querySelector('ins')?.textContent).toContain('"name": "default"');
    // A release plan step has no configuration of its own to compare: its payload is shown instead.
    expect(
      sidesOf({ action: 'startMilestone', payload: { milestoneId: 'm1' } }, 'production'),
    ).toBeUndefined();
  });
});
