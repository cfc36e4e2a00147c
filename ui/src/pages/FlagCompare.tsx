import { Badge, Button, Card, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { OFF_COLOR, ON_COLOR } from '../components';
import { describeConstraint } from '../constraints';
import { useSegments } from '../queries';
import type { Flag, FlagEnvironment, Strategy } from '../types';
import { compareEnvironments, describeRow, type StrategyField, type StrategyRow } from './flagCompare';
import {
  describeParameters,
  type StrategyDefinition,
  typeLabel,
  useStrategyDefinitions,
} from './StrategyParameters';

/** The light tint that marks what differs (text on it keeps its contrast in both schemes). */
const CHANGED = 'var(--mantine-color-yellow-light)';

interface Names {
  typeName: (name: string) => string;
  definitionOf: (name: string) => StrategyDefinition | undefined;
  segmentName: (id: number) => string;
}

/** The lines that show a strategy, each with the field it belongs to. */
function strategyLines(s: Strategy, names: Names): { field: StrategyField | 'type'; text: string }[] {
  const fmtVariant = (v: NonNullable<Strategy['variants']>[number]) =>
    `${v.name} ${(v.weight / 10).toFixed(1).replace(/\.0$/, '')}%${v.payload ? ` (${v.payload.type}: ${v.payload.value})` : ''}`;
  return [
    { field: 'type', text: `Type: ${names.typeName(s.name)}` },
    ...(s.title ? [{ field: 'title' as const, text: `Title: ${s.title}` }] : []),
    ...(s.disabled ? [{ field: 'disabled' as const, text: 'Disabled' }] : []),
    ...describeParameters(s, names.definitionOf(s.name)).map((text) => ({
      field: 'parameters' as const,
      text,
    })),
    ...s.constraints.map((c) => ({
      field: 'constraints' as const,
      text: `Constraint: ${describeConstraint(c)}`,
    })),
    ...((s.segments ?? []).length
      ? [
          {
            field: 'segments' as const,
            text: `Segments: ${(s.segments ?? []).map(names.segmentName).join(', ')}`,
          },
        ]
      : []),
    ...((s.variants ?? []).length
      ? [{ field: 'variants' as const, text: `Variants: ${(s.variants ?? []).map(fmtVariant).join(', ')}` }]
      : []),
  ];
}

function StrategyCell({ strategy, row, names }: { strategy?: Strategy; row: StrategyRow; names: Names }) {
  if (!strategy) return <Text size="sm">None</Text>;
  const lines = strategyLines(strategy, names);
  // A field that differs is marked on both sides; one of the environments only: every line.
  const marked = (field: StrategyField | 'type') =>
    row.status === 'only-left' ||
    row.status === 'only-right' ||
    (field !== 'type' && row.differences.includes(field));
  const fields = new Set(lines.map((l) => l.field));
  return (
    <Stack gap={2}>
      {lines.map((line) => (
        <Text
          size="sm"
          key={`${line.field}:${line.text}`}
          fw={marked(line.field) ? 700 : undefined}
          data-changed={marked(line.field) || undefined}
        >
          {line.text}
        </Text>
      ))}
      {/* A field the other side has and this one lacks: say so, marked too. */}
      {row.differences
        .filter((f) => !fields.has(f) && f !== 'disabled' && f !== 'title')
        .map((f) => (
          <Text size="sm" fw={700} key={`no-${f}`} data-changed>
            No {f}
          </Text>
        ))}
    </Stack>
  );
}

/** The side-by-side table of two environments of a flag; rows that differ are tinted and say how. */
export function CompareTable(props: { left: FlagEnvironment; right: FlagEnvironment; names: Names }) {
  const { left, right, names } = props;
  const comparison = compareEnvironments(left, right);
  const onOff = (on: boolean) => <Badge color={on ? ON_COLOR : OFF_COLOR}>{on ? 'On' : 'Off'}</Badge>;
  const rowName = (row: StrategyRow) => {
    const s = (row.left ?? row.right)!;
    return s.title ? `${s.title} (${names.typeName(s.name)})` : names.typeName(s.name);
  };
  return (
    <Stack gap="xs">
      <Text size="sm" role="status">
        {comparison.identical
          ? `${left.name} and ${right.name} are the same.`
          : `${comparison.strategies.filter((r) => r.status !== 'same').length + (comparison.enabled.differs ? 1 : 0)} differences between ${left.name} and ${right.name}.`}
      </Text>
      <Table withTableBorder withColumnBorders aria-label={`Comparison of ${left.name} and ${right.name}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">What</Table.Th>
            <Table.Th scope="col">{left.name}</Table.Th>
            <Table.Th scope="col">{right.name}</Table.Th>
            <Table.Th scope="col">Difference</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <Table.Tr bg={comparison.enabled.differs ? CHANGED : undefined}>
            <Table.Th scope="row">Enabled</Table.Th>
            <Table.Td>{onOff(left.enabled)}</Table.Td>
            <Table.Td>{onOff(right.enabled)}</Table.Td>
            <Table.Td fw={comparison.enabled.differs ? 700 : undefined}>
              {comparison.enabled.differs ? 'Different' : 'Same'}
            </Table.Td>
          </Table.Tr>
          {comparison.strategies.length === 0 && (
            <Table.Tr>
              <Table.Th scope="row">Strategies</Table.Th>
              <Table.Td colSpan={3}>None in either environment.</Table.Td>
            </Table.Tr>
          )}
          {comparison.strategies.map((row, i) => (
            <Table.Tr
              // biome-ignore lint/suspicious/noArrayIndexKey: a row is a pairing, which has no id of its own
              key={i}
              bg={row.status === 'same' ? undefined : CHANGED}
              data-status={row.status}
            >
              <Table.Th scope="row">Strategy: {rowName(row)}</Table.Th>
              <Table.Td>
                <StrategyCell strategy={row.left} row={row} names={names} />
              </Table.Td>
              <Table.Td>
                <StrategyCell strategy={row.right} row={row} names={names} />
              </Table.Td>
              <Table.Td fw={row.status === 'same' ? undefined : 700}>
                {describeRow(row, left.name, right.name)}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

/**
 * "Compare environments": pick two environments of the flag and see them side by side. Closed
 * until asked for, so the page does not show every strategy twice.
 */
export function FlagCompare({ flag }: { flag: Flag }) {
  const names = flag.environments.map((e) => e.name);
  const [open, setOpen] = useState(false);
  const [leftName, setLeftName] = useState<string | null>(names[0] ?? null);
  const [rightName, setRightName] = useState<string | null>(names[1] ?? null);
  const segments = useSegments();
  const definitions = useStrategyDefinitions();
  if (names.length < 2) return null;
  const definitionOf = (name: string) => definitions.data?.find((d) => d.name === name);
  const helpers: Names = {
    definitionOf,
    typeName: (name) => {
      const d = definitionOf(name);
      return d ? typeLabel(d) : name;
    },
    segmentName: (id) => segments.data?.find((s) => s.id === id)?.name ?? `#${id}`,
  };
  const left = flag.environments.find((e) => e.name === leftName);
  const right = flag.environments.find((e) => e.name === rightName);
  return (
    <Card withBorder component="section" aria-label="Compare environments">
      <Group justify="space-between">
        <Title order={2} size="h4">
          Compare environments
        </Title>
        <Button size="xs" variant="default" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide comparison' : 'Compare environments'}
        </Button>
      </Group>
      {open && (
        <Stack mt="sm">
          <Group align="end">
            <Select
              label="First environment"
              data={names}
              value={leftName}
              onChange={setLeftName}
              allowDeselect={false}
              w={220}
            />
            <Select
              label="Second environment"
              data={names}
              value={rightName}
              onChange={setRightName}
              allowDeselect={false}
              w={220}
            />
          </Group>
          {left && right && left.name !== right.name ? (
            <CompareTable left={left} right={right} names={helpers} />
          ) : (
            <Text size="sm">Pick two different environments.</Text>
          )}
        </Stack>
      )}
    </Card>
  );
}
