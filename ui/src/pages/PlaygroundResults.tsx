import { Badge, Drawer, Group, List, Paper, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { Empty, OFF_COLOR, ON_COLOR } from '../components';
import { describeConstraint } from '../constraints';
import type { Constraint } from '../types';

/** The body of POST /api/admin/playground/advanced. */
export interface AdvancedBody {
  environments: string[];
  projects: '*' | string[];
  context: Record<string, unknown>;
}

type Decision = boolean | 'unknown';
type ConstraintResult = Constraint & { result: boolean };
interface VariantResult {
  name: string;
  enabled: boolean;
  payload?: { type: string; value: string };
}
interface StrategyEvaluation {
  name: string;
  id: string;
  title?: string;
  disabled: boolean | null;
  parameters: Record<string, string>;
  result: { enabled: Decision; evaluationStatus: string; variant?: VariantResult };
  constraints: ConstraintResult[];
  segments: { id: number; name: string; result: boolean; constraints: ConstraintResult[] }[];
}
/** One flag in one environment for one context combination. */
export interface Evaluation {
  name: string;
  projectId: string;
  environment: string;
  context: Record<string, string>;
  isEnabled: boolean;
  isEnabledInCurrentEnvironment: boolean;
  hasUnsatisfiedDependency: boolean;
  variant: VariantResult;
  strategies: { result: Decision; data: StrategyEvaluation[] };
}
/** The answer of POST /api/admin/playground/advanced. */
export interface AdvancedResult {
  features: { name: string; projectId: string; environments: Record<string, Evaluation[]> }[];
  warnings?: { invalidContextProperties: string[] };
}

export type Outcome = 'true' | 'false' | 'unknown';

/**
 * What an evaluation means for the person asking: on, off, or unknown when the flag is on in the
 * environment but the only deciding strategies are ones the server cannot evaluate (custom types).
 */
export function outcome(e: Evaluation): Outcome {
  if (e.isEnabled) return 'true';
  if (e.isEnabledInCurrentEnvironment && !e.hasUnsatisfiedDependency && e.strategies.result === 'unknown')
    return 'unknown';
  return 'false';
}

const COLORS: Record<Outcome, string> = { true: ON_COLOR, false: OFF_COLOR, unknown: 'violet.9' };

/** A cell's text: the outcome (or "2 of 3 true" when the context combinations differ) and the variant. */
export function summary(evaluations: Evaluation[]): { text: string; color: string; variant?: string } {
  const outcomes = evaluations.map(outcome);
  const variants = [...new Set(evaluations.filter((e) => e.variant.enabled).map((e) => e.variant.name))];
  const variant = variants.length > 0 ? variants.join(', ') : undefined;
  const first = outcomes[0];
  if (first === undefined) return { text: '—', color: OFF_COLOR };
  if (outcomes.every((o) => o === first)) return { text: first, color: COLORS[first], variant };
  const on = outcomes.filter((o) => o === 'true').length;
  return { text: `${on} of ${outcomes.length} true`, color: 'blue.9', variant };
}

const yesNo = (value: boolean) => (value ? 'yes' : 'no');
const decision = (value: Decision): Outcome => (value === 'unknown' ? 'unknown' : value ? 'true' : 'false');

function ResultBadge({ value }: { value: Outcome }) {
  return <Badge color={COLORS[value]}>{value}</Badge>;
}

function Constraints({ label, constraints }: { label: string; constraints: ConstraintResult[] }) {
  if (constraints.length === 0) return null;
  return (
    <List size="sm" aria-label={label} spacing={4}>
      {constraints.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: constraints have no id; the list never reorders
        <List.Item key={i}>
          <Group gap="xs" wrap="nowrap">
            <ResultBadge value={decision(c.result)} />
            <Text size="sm">{describeConstraint(c)}</Text>
          </Group>
        </List.Item>
      ))}
    </List>
  );
}

function StrategyCard({ strategy }: { strategy: StrategyEvaluation }) {
  const name = strategy.title ? `${strategy.title} (${strategy.name})` : strategy.name;
  const parameters = Object.entries(strategy.parameters);
  return (
    <Paper withBorder p="sm" component="li" aria-label={`Strategy ${name}`}>
      <Stack gap="xs">
        <Group gap="xs">
          <ResultBadge value={decision(strategy.result.enabled)} />
          <Text fw={600}>{name}</Text>
          {strategy.disabled && <Badge color="gray.8">disabled</Badge>}
        </Group>
        {strategy.result.evaluationStatus !== 'complete' && (
          <Text size="sm">Evaluation: {strategy.result.evaluationStatus}</Text>
        )}
        {parameters.length > 0 && (
          <Text size="sm">Parameters: {parameters.map(([k, v]) => `${k}=${v}`).join(', ')}</Text>
        )}
        <Constraints label={`Constraints of ${name}`} constraints={strategy.constraints} />
        {strategy.segments.map((s) => (
          <Stack gap={4} key={s.id}>
            <Group gap="xs">
              <ResultBadge value={decision(s.result)} />
              <Text size="sm">Segment {s.name}</Text>
            </Group>
            <Constraints label={`Constraints of segment ${s.name}`} constraints={s.constraints} />
          </Stack>
        ))}
        {strategy.result.variant?.enabled && <Text size="sm">Variant: {strategy.result.variant.name}</Text>}
      </Stack>
    </Paper>
  );
}

/** Why a flag is on or off in one environment: each context combination, strategy and constraint. */
function Explanation({ evaluations, environment }: { evaluations: Evaluation[]; environment: string }) {
  return (
    <Stack>
      {evaluations.map((e) => {
        const context = Object.entries(e.context)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ');
        return (
          <Stack key={context} gap="xs">
            {evaluations.length > 1 && (
              <Title order={3} size="h5">
                Context: {context}
              </Title>
            )}
            <Group gap="xs">
              <Text>Result:</Text>
              <ResultBadge value={outcome(e)} />
              {e.variant.enabled && <Text>variant {e.variant.name}</Text>}
            </Group>
            <Text size="sm">
              Flag enabled in {environment}: {yesNo(e.isEnabledInCurrentEnvironment)}
            </Text>
            {e.hasUnsatisfiedDependency && <Text size="sm">A parent flag dependency is not satisfied.</Text>}
            {e.strategies.data.length === 0 ? (
              <Text size="sm">No strategies in {environment}.</Text>
            ) : (
              <Stack
                component="ul"
                gap="xs"
                p={0}
                m={0}
                style={{ listStyle: 'none' }}
                aria-label="Strategies"
              >
                {e.strategies.data.map((s) => (
                  <StrategyCard key={s.id} strategy={s} />
                ))}
              </Stack>
            )}
          </Stack>
        );
      })}
    </Stack>
  );
}

/** One row per flag, one column per environment; a cell opens the explanation in a drawer. */
export function PlaygroundResults({
  result,
  environments,
}: {
  result: AdvancedResult;
  environments: string[];
}) {
  const [open, setOpen] = useState<{ flag: string; environment: string } | null>(null);
  if (result.features.length === 0) return <Empty>No flags in the chosen projects.</Empty>;
  const shown = open && result.features.find((f) => f.name === open.flag);
  return (
    <>
      <Text size="sm" c="dimmed">
        Select a result to see the strategies and constraints behind it.
      </Text>
      <Table.ScrollContainer minWidth={400}>
        <Table striped aria-label="Playground result">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Flag</Table.Th>
              <Table.Th>Project</Table.Th>
              {environments.map((env) => (
                <Table.Th key={env}>{env}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {result.features.map((f) => (
              <Table.Tr key={`${f.projectId}/${f.name}`}>
                <Table.Td>{f.name}</Table.Td>
                <Table.Td>{f.projectId}</Table.Td>
                {environments.map((env) => {
                  const cell = summary(f.environments[env] ?? []);
                  return (
                    <Table.Td key={env}>
                      <UnstyledButton
                        aria-label={`${cell.text}${cell.variant ? ` ${cell.variant}` : ''}: explain ${f.name} in ${env}`}
                        onClick={() => setOpen({ flag: f.name, environment: env })}
                      >
                        <Badge component="span" color={cell.color} style={{ cursor: 'pointer' }}>
                          {cell.text}
                        </Badge>
                        {cell.variant && (
                          <Text component="span" size="sm" ml="xs">
                            {cell.variant}
                          </Text>
                        )}
                      </UnstyledButton>
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Drawer
        opened={Boolean(shown)}
        onClose={() => setOpen(null)}
        position="right"
        size="lg"
        title={open ? `${open.flag} in ${open.environment}` : ''}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {shown && open && (
          <Explanation
            evaluations={shown.environments[open.environment] ?? []}
            environment={open.environment}
          />
        )}
      </Drawer>
    </>
  );
}
