import { Checkbox, Group, NumberInput, Select, Slider, TagsInput, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { get } from '../api';
import { useContextFields } from '../queries';
import type { Strategy } from '../types';

/** A strategy type as `GET api/admin/strategies` lists it (see openapi.json, getAllStrategies). */
export interface StrategyParameter {
  name: string;
  /** string, percentage, list, number or boolean. */
  type: string;
  description: string;
  required: boolean;
}
export interface StrategyDefinition {
  name: string;
  title?: string | null;
  displayName?: string | null;
  description?: string | null;
  editable: boolean;
  /** Deprecated types keep working where used but are not offered for new strategies. */
  deprecated: boolean;
  parameters: StrategyParameter[];
}

export const definitionsKey = ['strategy-definitions'] as const;

export const useStrategyDefinitions = () =>
  useQuery({
    queryKey: definitionsKey,
    queryFn: async () => (await get<{ strategies: StrategyDefinition[] }>('api/admin/strategies')).strategies,
    staleTime: 60_000,
  });

export const typeLabel = (d: StrategyDefinition) => d.displayName || d.title || d.name;

/** The field's label: the parameter name with a capital (what SDK authors see), `%` for percentages. */
export const parameterLabel = (p: StrategyParameter) =>
  `${p.name.charAt(0).toUpperCase()}${p.name.slice(1)}${p.type === 'percentage' ? ' %' : ''}`;

/** Lists travel as one comma-separated string; the SDKs trim around the commas. */
export const splitList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** A type the service no longer defines (a deleted custom type): its stored parameters, as strings. */
export function fallbackDefinition(strategy: Strategy): StrategyDefinition {
  return {
    name: strategy.name,
    editable: false,
    deprecated: true,
    parameters: Object.keys(strategy.parameters ?? {}).map((name) => ({
      name,
      type: 'string',
      description: '',
      required: false,
    })),
  };
}

/** Form values for a type: the stored ones, else defaults (flexibleRollout's as the API fills them). */
export function initialParameters(
  definition: StrategyDefinition,
  stored: Record<string, string> | undefined,
  flagName: string,
): Record<string, string> {
  const defaults = (p: StrategyParameter) => {
    if (p.type === 'percentage') return '100';
    if (p.type === 'boolean') return 'false';
    if (p.name === 'stickiness') return 'default';
    if (p.name === 'groupId') return flagName;
    return '';
  };
  return Object.fromEntries(definition.parameters.map((p) => [p.name, stored?.[p.name] ?? defaults(p)]));
}

/** What the form would save wrongly, by parameter name. */
export function parameterProblems(
  definition: StrategyDefinition,
  values: Record<string, string>,
): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const p of definition.parameters) {
    const value = (values[p.name] ?? '').trim();
    const empty = p.type === 'list' ? splitList(value).length === 0 : value === '';
    if (empty) {
      if (p.required) problems[p.name] = 'Required.';
    } else if ((p.type === 'number' || p.type === 'percentage') && Number.isNaN(Number(value))) {
      problems[p.name] = 'Must be a number.';
    } else if (p.type === 'percentage' && (Number(value) < 0 || Number(value) > 100)) {
      problems[p.name] = 'Must be between 0 and 100.';
    }
  }
  return problems;
}

/**
 * The parameters as the API takes them (every value a string). Stored parameters the definition
 * does not declare are kept on an edit, so that saving never drops what an SDK may read.
 */
export function parametersPayload(
  definition: StrategyDefinition,
  values: Record<string, string>,
  stored: Record<string, string> = {},
): Record<string, string> {
  const declared = definition.parameters.map((p) => {
    const value = (values[p.name] ?? '').trim();
    if (p.type === 'list') return [p.name, splitList(value).join(',')];
    if (p.type === 'boolean') return [p.name, value === 'true' ? 'true' : 'false'];
    return [p.name, value];
  });
  return { ...stored, ...Object.fromEntries(declared) };
}

/** One short line per parameter that has a value, for the strategy's card. */
export function describeParameters(strategy: Strategy, definition?: StrategyDefinition): string[] {
  const parameters = strategy.parameters ?? {};
  if (strategy.name === 'flexibleRollout') return [`Rollout ${parameters.rollout ?? 100}%`];
  const declared = definition?.parameters ?? fallbackDefinition(strategy).parameters;
  return declared.flatMap((p) => {
    const value = parameters[p.name];
    if (value === undefined || value === '') return [];
    const name = parameterLabel({ ...p, type: 'string' });
    if (p.type === 'list') return [`${name}: ${splitList(value).join(', ')}`];
    if (p.type === 'percentage') return [`${name} ${value}%`];
    if (p.type === 'boolean') return [`${name}: ${value === 'true' ? 'yes' : 'no'}`];
    return [`${name}: ${value}`];
  });
}

/** One input per declared parameter, by type; `errors` are shown once the user tried to save. */
export function ParameterFields(props: {
  definition: StrategyDefinition;
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  errors: Record<string, string>;
}) {
  const { definition, values, onChange, errors } = props;
  const contextFields = useContextFields();
  const stickiness = [
    'default',
    'random',
    ...(contextFields.data ?? []).filter((f) => f.stickiness).map((f) => f.name),
  ];
  const set = (name: string, value: string) => onChange({ ...values, [name]: value });
  return definition.parameters.map((p) => {
    const common = {
      label: parameterLabel(p),
      description: p.description || undefined,
      withAsterisk: p.required,
      error: errors[p.name],
    };
    const value = values[p.name] ?? '';
    if (p.type === 'percentage') {
      const number = Number(value) || 0;
      return (
        <Group key={p.name} align="center" wrap="nowrap">
          <NumberInput
            {...common}
            min={0}
            max={100}
            clampBehavior="strict"
            value={value === '' ? '' : number}
            onChange={(v) => set(p.name, v === '' ? '' : String(v))}
            w={160}
          />
          {/* The same value, dragged; named apart so that the number box keeps the short label. */}
          <Slider
            style={{ flex: 1 }}
            min={0}
            max={100}
            thumbLabel={`${parameterLabel({ ...p, type: 'string' })} percentage`}
            value={number}
            onChange={(v) => set(p.name, String(v))}
          />
        </Group>
      );
    }
    if (p.type === 'list')
      return (
        <TagsInput
          key={p.name}
          {...common}
          description={[p.description, 'Enter or comma after each value.'].filter(Boolean).join(' ')}
          value={splitList(value)}
          onChange={(list) => set(p.name, list.join(','))}
        />
      );
    if (p.type === 'boolean')
      return (
        <Checkbox
          key={p.name}
          label={common.label}
          description={common.description}
          error={common.error}
          checked={value === 'true'}
          onChange={(e) => set(p.name, String(e.currentTarget.checked))}
        />
      );
    if (p.type === 'number')
      return (
        <NumberInput
          key={p.name}
          {...common}
          value={value}
          onChange={(v) => set(p.name, String(v))}
          w={200}
        />
      );
    if (p.name === 'stickiness' && definition.name === 'flexibleRollout')
      return (
        <Select
          key={p.name}
          {...common}
          // Named apart from the strategy variants' stickiness further down the form.
          label="Rollout stickiness"
          data={stickiness.includes(value) || !value ? stickiness : [...stickiness, value]}
          value={value || null}
          onChange={(v) => set(p.name, v ?? 'default')}
          allowDeselect={false}
          w={220}
        />
      );
    return (
      <TextInput
        key={p.name}
        {...common}
        value={value}
        onChange={(e) => set(p.name, e.currentTarget.value)}
      />
    );
  });
}
