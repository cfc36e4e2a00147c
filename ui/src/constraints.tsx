import {
  ActionIcon,
  Button,
  Checkbox,
  Fieldset,
  Group,
  Select,
  Stack,
  TagsInput,
  TextInput,
} from '@mantine/core';
import { useContextFields } from './queries';
import type { Constraint } from './types';

/** Operators as the API spells them, with what people call them. */
export const OPERATORS: { value: string; label: string }[] = [
  { value: 'IN', label: 'is one of' },
  { value: 'NOT_IN', label: 'is not one of' },
  { value: 'STR_CONTAINS', label: 'contains' },
  { value: 'STR_STARTS_WITH', label: 'starts with' },
  { value: 'STR_ENDS_WITH', label: 'ends with' },
  { value: 'NUM_EQ', label: '= (number)' },
  { value: 'NUM_GT', label: '> (number)' },
  { value: 'NUM_GTE', label: '≥ (number)' },
  { value: 'NUM_LT', label: '< (number)' },
  { value: 'NUM_LTE', label: '≤ (number)' },
  { value: 'DATE_AFTER', label: 'after (date)' },
  { value: 'DATE_BEFORE', label: 'before (date)' },
  { value: 'SEMVER_EQ', label: '= (semver)' },
  { value: 'SEMVER_GT', label: '> (semver)' },
  { value: 'SEMVER_LT', label: '< (semver)' },
  { value: 'SEMVER_GTE', label: '≥ (semver)' },
  { value: 'SEMVER_LTE', label: '≤ (semver)' },
  { value: 'REGEX', label: 'matches (regex)' },
  { value: 'IN_CIDR', label: 'in network (CIDR)' },
];

const MULTI = new Set(['IN', 'NOT_IN', 'STR_CONTAINS', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'IN_CIDR']);
const STRING_OPS = new Set(['STR_CONTAINS', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'REGEX']);

export const isMultiValue = (operator: string) => MULTI.has(operator);

/** The constraint as the API takes it: `values` for list operators, `value` for single ones. */
export function cleanConstraint(c: Constraint): Constraint {
  const base = { contextName: c.contextName, operator: c.operator, inverted: c.inverted ?? false };
  const caseInsensitive = STRING_OPS.has(c.operator) ? { caseInsensitive: c.caseInsensitive ?? false } : {};
  return isMultiValue(c.operator)
    ? { ...base, ...caseInsensitive, values: c.values ?? [] }
    : { ...base, ...caseInsensitive, value: c.value ?? '' };
}

export function describeConstraint(c: Constraint): string {
  const op = OPERATORS.find((o) => o.value === c.operator)?.label ?? c.operator;
  const values = isMultiValue(c.operator) ? (c.values ?? []).join(', ') : (c.value ?? '');
  return `${c.contextName} ${c.inverted ? 'NOT ' : ''}${op} ${values}${c.caseInsensitive ? ' (any case)' : ''}`;
}

/** A list of constraints: context field, operator, values (legal values offered), negation, case. */
export function ConstraintsEditor(props: { value: Constraint[]; onChange: (value: Constraint[]) => void }) {
  const { value, onChange } = props;
  const fields = useContextFields();
  const names = (fields.data ?? []).map((f) => f.name);
  const set = (index: number, patch: Partial<Constraint>) =>
    onChange(value.map((c, i) => (i === index ? { ...c, ...patch } : c)));
  return (
    <Stack gap="xs">
      {value.map((c, index) => {
        const legal =
          fields.data?.find((f) => f.name === c.contextName)?.legalValues?.map((v) => v.value) ?? [];
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: constraints have no identity of their own
          <Fieldset key={index} legend={`Constraint ${index + 1}`} p="xs">
            <Group align="end" wrap="wrap">
              <Select
                label="Context field"
                data={names.includes(c.contextName) || !c.contextName ? names : [...names, c.contextName]}
                value={c.contextName || null}
                onChange={(v) => set(index, { contextName: v ?? '' })}
                searchable
                w={170}
              />
              <Select
                label="Operator"
                data={OPERATORS}
                value={c.operator}
                onChange={(v) => set(index, { operator: v ?? 'IN' })}
                allowDeselect={false}
                w={170}
              />
              {isMultiValue(c.operator) ? (
                <TagsInput
                  label="Values"
                  description="Enter or comma after each"
                  data={legal}
                  value={c.values ?? []}
                  onChange={(values) => set(index, { values })}
                  w={260}
                />
              ) : (
                <TextInput
                  label="Value"
                  value={c.value ?? ''}
                  onChange={(e) => set(index, { value: e.currentTarget.value })}
                  w={200}
                />
              )}
              <Checkbox
                label="Negate"
                checked={c.inverted ?? false}
                onChange={(e) => set(index, { inverted: e.currentTarget.checked })}
              />
              {STRING_OPS.has(c.operator) && (
                <Checkbox
                  label="Ignore case"
                  checked={c.caseInsensitive ?? false}
                  onChange={(e) => set(index, { caseInsensitive: e.currentTarget.checked })}
                />
              )}
              <ActionIcon
                variant="subtle"
                color="red.9"
                aria-label={`Remove constraint ${index + 1}`}
                onClick={() => onChange(value.filter((_, i) => i !== index))}
              >
                <span aria-hidden="true">✕</span>
              </ActionIcon>
            </Group>
          </Fieldset>
        );
      })}
      <Group>
        <Button
          variant="default"
          size="xs"
          onClick={() => onChange([...value, { contextName: '', operator: 'IN', values: [] }])}
        >
          Add constraint
        </Button>
      </Group>
    </Stack>
  );
}
