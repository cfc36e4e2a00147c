import { fireEvent, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { renderWithContext } from './test-utils';
import type { Variant } from './types';
import { VariantsEditor, variantsValid } from './variants';
import { splitWeights, variantsPayload } from './weights';

/** The editor with its state, showing what a save would send and whether it may. */
function Harness({ initial }: { initial: Variant[] }) {
  const [value, setValue] = useState<Variant[]>(initial);
  const [stickiness, setStickiness] = useState('default');
  return (
    <>
      <VariantsEditor
        value={value}
        onChange={setValue}
        stickiness={stickiness}
        onStickinessChange={setStickiness}
      />
      <pre data-testid="payload">{JSON.stringify(variantsPayload(value, stickiness))}</pre>
      <pre data-testid="valid">{String(variantsValid(value))}</pre>
    </>
  );
}

const payload = (): Variant[] => JSON.parse(screen.getByTestId('payload').textContent ?? '[]');
const bar = () => screen.getByRole('img', { name: /^Variant weights/ }).getAttribute('aria-label');
const v = (name: string, weight = 0, weightType = 'variable'): Variant => ({ name, weight, weightType });

describe('splitWeights (the server rule: variable variants share what fixed ones leave)', () => {
  it('gives the remainder to the first variable variants, in list order', () => {
    expect(splitWeights([v('a'), v('b'), v('c')])).toEqual([334, 333, 333]);
  });
  it('keeps fixed weights and shares the rest', () => {
    expect(splitWeights([v('a', 200, 'fix'), v('b'), v('c')])).toEqual([200, 400, 400]);
    expect(splitWeights([v('a'), v('b', 150, 'fix'), v('c')])).toEqual([425, 150, 425]);
  });
  it('leaves nothing to share when fixed weights take it all', () => {
    expect(splitWeights([v('a', 1000, 'fix'), v('b')])).toEqual([1000, 0]);
  });
});

describe('VariantsEditor', () => {
  it('splits variable weights evenly and shows them on the bar, totalling 1000', () => {
    renderWithContext(<Harness initial={[v('blue'), v('red')]} />);
    fireEvent.click(screen.getByRole('button', { name: 'Add variant' }));
    fireEvent.change(screen.getByLabelText('Variant 3 name'), { target: { value: 'green' } });
    expect(bar()).toBe('Variant weights: blue 33.4%, red 33.3%, green 33.3%');
    expect(payload().map((x) => x.weight)).toEqual([334, 333, 333]);
    expect(payload().every((x) => x.stickiness === 'default' && x.weightType === 'variable')).toBe(true);
  });

  it('keeps a fixed weight and lets the variable ones share the rest', () => {
    renderWithContext(<Harness initial={[v('blue'), v('red'), v('green')]} />);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Fixed weight for variant 1' }));
    fireEvent.change(screen.getByLabelText('Variant 1 weight %'), { target: { value: '50' } });
    expect(bar()).toBe('Variant weights: blue 50%, red 25%, green 25%');
    expect(payload()).toEqual([
      { name: 'blue', weight: 500, weightType: 'fix', stickiness: 'default' },
      { name: 'red', weight: 250, weightType: 'variable', stickiness: 'default' },
      { name: 'green', weight: 250, weightType: 'variable', stickiness: 'default' },
    ]);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('warns when the weights do not total 100% and refuses to save', () => {
    renderWithContext(<Harness initial={[v('blue', 300, 'fix'), v('red', 200, 'fix')]} />);
    expect(screen.getByRole('status').textContent).toContain('The weights total 50%, not 100%.');
    expect(screen.getByRole('status').textContent).toContain(
      'At least one variant must have a variable weight.',
    );
    expect(screen.getByTestId('valid').textContent).toBe('false');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Fixed weight for variant 2' }));
    expect(bar()).toBe('Variant weights: blue 30%, red 70%');
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.getByTestId('valid').textContent).toBe('true');
  });

  it('warns when fixed weights exceed 100%', () => {
    renderWithContext(<Harness initial={[v('a', 700, 'fix'), v('b', 600, 'fix'), v('c')]} />);
    expect(screen.getByRole('status').textContent).toContain('The weights total 130%, not 100%.');
  });

  it('validates a JSON payload and sends it with its type', () => {
    renderWithContext(<Harness initial={[v('blue')]} />);
    fireEvent.click(screen.getByLabelText('Variant 1 payload type', { selector: 'input' }));
    fireEvent.click(screen.getByRole('option', { name: 'JSON' }));
    const field = screen.getByLabelText('Variant 1 payload');
    fireEvent.change(field, { target: { value: '{"color":' } });
    expect(screen.getByText('Not valid JSON.')).toBeTruthy();
    expect(screen.getByTestId('valid').textContent).toBe('false');
    fireEvent.change(field, { target: { value: '{"color":"blue"}' } });
    expect(screen.queryByText('Not valid JSON.')).toBeNull();
    expect(payload()[0]?.payload).toEqual({ type: 'json', value: '{"color":"blue"}' });
  });

  it('rejects a number payload that is not a number', () => {
    renderWithContext(<Harness initial={[{ ...v('n'), payload: { type: 'number', value: '12px' } }]} />);
    expect(screen.getByText('Not a number.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Variant 1 payload'), { target: { value: '12.5' } });
    expect(screen.queryByText('Not a number.')).toBeNull();
  });

  it('applies the chosen stickiness to every variant', () => {
    renderWithContext(<Harness initial={[v('a'), v('b')]} />, [{ name: 'tenant', stickiness: true }]);
    fireEvent.click(screen.getByLabelText('Stickiness', { selector: 'input' }));
    fireEvent.click(screen.getByRole('option', { name: 'tenant' }));
    expect(payload().map((x) => x.stickiness)).toEqual(['tenant', 'tenant']);
  });
});
