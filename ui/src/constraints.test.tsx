import { fireEvent, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { ConstraintsEditor, cleanConstraint } from './constraints';
import { renderWithContext } from './test-utils';
import type { Constraint } from './types';

/** The editor with its state, showing what a save would send. */
function Harness({ initial = [] }: { initial?: Constraint[] }) {
  const [value, setValue] = useState<Constraint[]>(initial);
  return (
    <>
      <ConstraintsEditor value={value} onChange={setValue} />
      <pre data-testid="payload">{JSON.stringify(value.map(cleanConstraint))}</pre>
    </>
  );
}

const payload = () => JSON.parse(screen.getByTestId('payload').textContent ?? '[]');

function pick(label: string, option: string) {
  fireEvent.click(screen.getByLabelText(label, { selector: 'input' }));
  fireEvent.click(screen.getByRole('option', { name: option }));
}

/** Types a value into a focused tags field and presses Enter (Mantine ignores unfocused writes). */
function typeTag(input: HTMLElement, value: string) {
  input.focus();
  fireEvent.change(input, { target: { value } });
  fireEvent.keyDown(input, { key: 'Enter' });
}

const fields = [
  { name: 'userId' },
  { name: 'tier', legalValues: [{ value: 'gold' }, { value: 'silver' }] },
  { name: 'appVersion' },
];

describe('ConstraintsEditor', () => {
  it('adds a list constraint whose values become `values`', () => {
    renderWithContext(<Harness />, fields);
    fireEvent.click(screen.getByRole('button', { name: 'Add constraint' }));
    pick('Context field', 'tier');
    const values = screen.getByLabelText('Values', { selector: 'input' });
    typeTag(values, 'gold');
    typeTag(values, 'platinum');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Negate' }));
    expect(payload()).toEqual([
      { contextName: 'tier', operator: 'IN', inverted: true, values: ['gold', 'platinum'] },
    ]);
  });

  it('sends a single `value` for a semver operator and no case flag', () => {
    renderWithContext(<Harness />, fields);
    fireEvent.click(screen.getByRole('button', { name: 'Add constraint' }));
    pick('Context field', 'appVersion');
    pick('Operator', '≥ (semver)');
    fireEvent.change(screen.getByLabelText('Value', { selector: 'input' }), { target: { value: '2.1.0' } });
    expect(screen.queryByRole('checkbox', { name: 'Ignore case' })).toBeNull();
    expect(payload()).toEqual([
      { contextName: 'appVersion', operator: 'SEMVER_GTE', inverted: false, value: '2.1.0' },
    ]);
  });

  it('offers case-insensitivity for string operators and sends it', () => {
    renderWithContext(<Harness />, fields);
    fireEvent.click(screen.getByRole('button', { name: 'Add constraint' }));
    pick('Context field', 'userId');
    pick('Operator', 'starts with');
    const values = screen.getByLabelText('Values', { selector: 'input' });
    typeTag(values, 'admin-');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Ignore case' }));
    expect(payload()).toEqual([
      {
        contextName: 'userId',
        operator: 'STR_STARTS_WITH',
        inverted: false,
        caseInsensitive: true,
        values: ['admin-'],
      },
    ]);
  });

  it('removes the constraint the user picked, keeping the others in order', () => {
    renderWithContext(
      <Harness
        initial={[
          { contextName: 'userId', operator: 'IN', values: ['1'] },
          { contextName: 'tier', operator: 'IN', values: ['gold'] },
        ]}
      />,
      fields,
    );
    const first = screen.getByRole('group', { name: 'Constraint 1' });
    expect(within(first).getByText('1')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Remove constraint 1' }));
    expect(payload()).toEqual([{ contextName: 'tier', operator: 'IN', inverted: false, values: ['gold'] }]);
  });
});
