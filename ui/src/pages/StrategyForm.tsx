import {
  Button,
  Fieldset,
  Group,
  Modal,
  MultiSelect,
  Radio,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { notifyDone } from '../api';
import { ErrorState, Loading } from '../components';
import { ConstraintsEditor, cleanConstraint } from '../constraints';
import { useSegments } from '../queries';
import type { Constraint, Strategy, Variant } from '../types';
import { VariantsEditor, variantsValid } from '../variants';
import { variantsPayload } from '../weights';
import {
  fallbackDefinition,
  initialParameters,
  ParameterFields,
  parameterProblems,
  parametersPayload,
  type StrategyDefinition,
  typeLabel,
  useStrategyDefinitions,
} from './StrategyParameters';

interface Props {
  flagName: string;
  env: string;
  /** The strategy to edit; none to add one. */
  strategy?: Strategy;
  onClose: () => void;
  save: (body: unknown, id?: string) => Promise<void>;
  /** What to say once saved, instead of "Strategy saved." (a change request's draft). */
  doneMessage?: string | undefined;
}

/**
 * Adds or edits a strategy of any defined type: the type (fixed once saved), a title, the type's
 * parameters, constraints, segments and strategy variants.
 */
export function StrategyForm(props: Props) {
  const { env, strategy, onClose } = props;
  const definitions = useStrategyDefinitions();
  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title={strategy ? `Edit strategy in ${env}` : `Add a strategy in ${env}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {definitions.isPending ? (
        <Loading />
      ) : definitions.isError ? (
        <ErrorState error={definitions.error} />
      ) : (
        <StrategyFormBody {...props} definitions={definitions.data} />
      )}
    </Modal>
  );
}

function StrategyFormBody(props: Props & { definitions: StrategyDefinition[] }) {
  const { flagName, env, strategy, onClose, save, definitions, doneMessage } = props;
  const segments = useSegments();
  // Deprecated types are offered only to the strategies that already use them.
  const offered = definitions.filter((d) => !d.deprecated);
  const definitionOf = (name: string) => definitions.find((d) => d.name === name);
  const firstType = offered.find((d) => d.name === 'flexibleRollout')?.name ?? offered[0]?.name ?? '';
  const [type, setType] = useState(strategy?.name ?? firstType);
  const definition = definitionOf(type) ?? (strategy ? fallbackDefinition(strategy) : undefined);
  const [values, setValues] = useState<Record<string, string>>(() =>
    definition ? initialParameters(definition, strategy?.parameters, flagName) : {},
  );
  const [tried, setTried] = useState(false);
  const [title, setTitle] = useState(strategy?.title ?? '');
  const [constraints, setConstraints] = useState<Constraint[]>(strategy?.constraints ?? []);
  const [segmentIds, setSegmentIds] = useState<string[]>((strategy?.segments ?? []).map(String));
  const [variants, setVariants] = useState<Variant[]>(strategy?.variants ?? []);
  const [variantStickiness, setVariantStickiness] = useState(
    strategy?.variants?.[0]?.stickiness ?? 'default',
  );
  const problems = definition ? parameterProblems(definition, values) : {};
  const submit = useMutation({
    mutationFn: (d: StrategyDefinition) =>
      save(
        {
          name: d.name,
          title: title.trim() || null,
          // Stored parameters of the same type are kept; a new type starts from its own.
          parameters: parametersPayload(d, values, strategy?.name === d.name ? strategy.parameters : {}),
          constraints: constraints.map(cleanConstraint),
          segments: segmentIds.map(Number),
          variants: variantsPayload(variants, variantStickiness),
        },
        strategy?.id,
      ),
    onSuccess: () => {
      notifyDone(doneMessage ?? (strategy ? 'Strategy saved.' : `Strategy added in ${env}.`));
      onClose();
    },
  });
  if (!definition) return <ErrorState error="No strategy type is available for new strategies." />;
  const pickType = (name: string) => {
    const next = definitionOf(name);
    if (!next) return;
    setType(name);
    setValues(initialParameters(next, strategy?.name === name ? strategy.parameters : undefined, flagName));
    setTried(false);
  };
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        setTried(true);
        if (Object.keys(problems).length === 0) submit.mutate(definition);
      }}
    >
      <Stack>
        {strategy ? (
          <Text>
            Type: {typeLabel(definition)} ({definition.name}){definition.deprecated ? ' · deprecated' : ''}
          </Text>
        ) : (
          <Radio.Group label="Strategy type" value={type} onChange={pickType}>
            <SimpleGrid cols={{ base: 1, sm: 2 }} mt="xs" spacing="sm">
              {offered.map((d) => (
                <Radio
                  key={d.name}
                  value={d.name}
                  label={typeLabel(d)}
                  description={d.description || d.name}
                />
              ))}
            </SimpleGrid>
          </Radio.Group>
        )}
        <TextInput label="Title (optional)" value={title} onChange={(e) => setTitle(e.currentTarget.value)} />
        {definition.parameters.length > 0 ? (
          <Fieldset legend={`Parameters of ${typeLabel(definition)}`} p="xs">
            <Stack gap="xs">
              <ParameterFields
                definition={definition}
                values={values}
                onChange={setValues}
                errors={tried ? problems : {}}
              />
            </Stack>
          </Fieldset>
        ) : (
          <Text size="sm" c="dimmed">
            {typeLabel(definition)} has no parameters: it is on for everyone its constraints and segments let
            through.
          </Text>
        )}
        <ConstraintsEditor value={constraints} onChange={setConstraints} />
        <MultiSelect
          label="Segments"
          placeholder={segments.data?.length ? 'Pick segments' : 'No segments yet'}
          data={(segments.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
          value={segmentIds}
          onChange={setSegmentIds}
          searchable
        />
        <Fieldset legend="Strategy variants" p="xs">
          <VariantsEditor
            value={variants}
            onChange={setVariants}
            stickiness={variantStickiness}
            onStickinessChange={setVariantStickiness}
          />
        </Fieldset>
        <Group justify="end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={submit.isPending} disabled={!variantsValid(variants)}>
            Save strategy
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
