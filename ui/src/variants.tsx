import {
  ActionIcon,
  Alert,
  Box,
  Button,
  Checkbox,
  Fieldset,
  Group,
  NumberInput,
  Select,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useContextFields } from './queries';
import type { Variant } from './types';
import { payloadProblem, percent, splitWeights, TOTAL, variantProblems } from './weights';

// Shade-9 colours: white text is not drawn on them, but neighbouring segments stay distinguishable.
const COLORS = ['indigo', 'teal', 'orange', 'grape', 'cyan', 'pink', 'lime', 'red'];

/** A 100% bar of the variants' weights; the picture has a label and the numbers are also text. */
export function WeightBar({ variants, label }: { variants: Variant[]; label: string }) {
  const weights = splitWeights(variants);
  const parts = variants.map((v, i) => `${v.name || `variant ${i + 1}`} ${percent(weights[i] ?? 0)}`);
  return (
    <Stack gap={4}>
      <Box role="img" aria-label={`${label}: ${parts.join(', ')}`} className="weight-bar">
        {variants.map((_, i) => (
          <Box
            // biome-ignore lint/suspicious/noArrayIndexKey: names may be blank or repeated while typing
            key={i}
            style={{
              width: `${((weights[i] ?? 0) / TOTAL) * 100}%`,
              background: `var(--mantine-color-${COLORS[i % COLORS.length]}-6)`,
            }}
          />
        ))}
      </Box>
      <Text size="sm">{parts.join(' · ')}</Text>
    </Stack>
  );
}

const PAYLOAD_TYPES = [
  { value: 'none', label: 'No payload' },
  { value: 'string', label: 'String' },
  { value: 'json', label: 'JSON' },
  { value: 'number', label: 'Number' },
];

/** Stickiness choices: the built-in ones and the context fields marked usable for stickiness. */
export function useStickinessOptions(current: string) {
  const fields = useContextFields();
  const custom = (fields.data ?? []).filter((f) => f.stickiness).map((f) => f.name);
  return [...new Set(['default', 'userId', 'sessionId', 'random', ...custom, current])];
}

/**
 * Edits a variant list: name, fixed or variable weight (variable ones share what fixed ones leave),
 * payload with its type checked, one stickiness for the list; shows the bar and what is wrong.
 */
export function VariantsEditor(props: {
  value: Variant[];
  onChange: (value: Variant[]) => void;
  stickiness: string;
  onStickinessChange: (value: string) => void;
}) {
  const { value, onChange, stickiness, onStickinessChange } = props;
  const stickinessOptions = useStickinessOptions(stickiness);
  const weights = splitWeights(value);
  const problems = variantProblems(value);
  const set = (index: number, patch: Partial<Variant>) =>
    onChange(value.map((v, i) => (i === index ? { ...v, ...patch } : v)));
  return (
    <Stack gap="xs">
      {value.map((v, index) => {
        const fixed = v.weightType === 'fix';
        const n = index + 1;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a variant's name is edited here, so it is no key
          <Fieldset key={index} legend={`Variant ${n}`} p="xs">
            <Group align="end" wrap="wrap">
              <TextInput
                label={`Variant ${n} name`}
                value={v.name}
                onChange={(e) => set(index, { name: e.currentTarget.value })}
                w={160}
              />
              <Checkbox
                label={`Fixed weight for variant ${n}`}
                checked={fixed}
                onChange={(e) =>
                  set(index, {
                    weightType: e.currentTarget.checked ? 'fix' : 'variable',
                    weight: weights[index] ?? 0,
                  })
                }
              />
              <NumberInput
                label={`Variant ${n} weight %`}
                value={(fixed ? v.weight : (weights[index] ?? 0)) / 10}
                disabled={!fixed}
                min={0}
                max={100}
                decimalScale={1}
                clampBehavior="strict"
                onChange={(w) => set(index, { weight: Math.round((Number(w) || 0) * 10) })}
                w={130}
              />
              <Select
                label={`Variant ${n} payload type`}
                data={PAYLOAD_TYPES}
                value={v.payload?.type ?? 'none'}
                allowDeselect={false}
                onChange={(type) =>
                  set(index, {
                    payload: !type || type === 'none' ? undefined : { type, value: v.payload?.value ?? '' },
                  })
                }
                w={150}
              />
              <ActionIcon
                variant="subtle"
                color="red.9"
                aria-label={`Remove variant ${n}`}
                onClick={() => onChange(value.filter((_, i) => i !== index))}
              >
                <span aria-hidden="true">✕</span>
              </ActionIcon>
            </Group>
            {v.payload && (
              <Textarea
                mt="xs"
                label={`Variant ${n} payload`}
                value={v.payload.value}
                error={payloadProblem(v.payload)}
                minRows={2}
                onChange={(e) =>
                  set(index, { payload: { type: v.payload?.type ?? 'string', value: e.currentTarget.value } })
                }
              />
            )}
          </Fieldset>
        );
      })}
      <Group align="end">
        <Button
          variant="default"
          size="xs"
          onClick={() => onChange([...value, { name: '', weight: 0, weightType: 'variable' }])}
        >
          Add variant
        </Button>
        <Select
          label="Stickiness"
          data={stickinessOptions}
          value={stickiness}
          allowDeselect={false}
          onChange={(s) => onStickinessChange(s ?? 'default')}
          w={170}
        />
      </Group>
      {value.length > 0 && <WeightBar variants={value} label="Variant weights" />}
      {problems.length > 0 && (
        <Alert color="orange.9" title="Check the variants" role="status">
          {problems.map((p) => (
            <Text size="sm" key={p}>
              {p}
            </Text>
          ))}
        </Alert>
      )}
    </Stack>
  );
}

/** Whether the editor's list may be saved: no weight, name or payload problem. */
export const variantsValid = (variants: Variant[]) =>
  variantProblems(variants).length === 0 && variants.every((v) => !payloadProblem(v.payload));
