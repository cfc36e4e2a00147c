import { Box, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { enc, get } from '../api';
import { Empty, ErrorState, Loading, ON_COLOR } from '../components';
import { keys } from '../queries';

/** A row of `GET api/admin/client-metrics/features/:name/raw`: one app, environment and hour. */
interface MetricsRow {
  appName: string;
  environment: string;
  timestamp: string;
  yes: number;
  no: number;
  variants?: Record<string, number>;
}

interface Hour {
  start: number;
  yes: number;
  no: number;
}

export interface EnvironmentUsage {
  environment: string;
  hours: Hour[];
  yes: number;
  no: number;
  variants: [string, number][];
}

const HOUR = 3_600_000;
const HOURS = 48;
const NOT_ENABLED_COLOR = 'var(--mantine-color-gray-6)';

/** The rows summed over applications, per environment, into the 48 hours that end with this one. */
export function usageByEnvironment(rows: MetricsRow[], now: number): EnvironmentUsage[] {
  const last = Math.floor(now / HOUR) * HOUR;
  const first = last - (HOURS - 1) * HOUR;
  const envs = new Map<string, EnvironmentUsage & { variantMap: Map<string, number> }>();
  for (const row of rows) {
    const start = Math.floor(Date.parse(row.timestamp) / HOUR) * HOUR;
    if (!(start >= first && start <= last)) continue;
    let env = envs.get(row.environment);
    if (!env) {
      const hours = Array.from({ length: HOURS }, (_, i) => ({ start: first + i * HOUR, yes: 0, no: 0 }));
      env = { environment: row.environment, hours, yes: 0, no: 0, variants: [], variantMap: new Map() };
      envs.set(row.environment, env);
    }
    const hour = env.hours[(start - first) / HOUR]!;
    hour.yes += row.yes;
    hour.no += row.no;
    env.yes += row.yes;
    env.no += row.no;
    for (const [name, count] of Object.entries(row.variants ?? {}))
      env.variantMap.set(name, (env.variantMap.get(name) ?? 0) + count);
  }
  return [...envs.values()]
    .filter((e) => e.yes + e.no > 0)
    .sort((a, b) => a.environment.localeCompare(b.environment))
    .map(({ variantMap, ...e }) => ({ ...e, variants: [...variantMap].sort((a, b) => b[1] - a[1]) }));
}

const percent = (part: number, total: number) => (total ? Math.round((part / total) * 100) : 0);

/** "12 enabled, 3 not enabled (80% enabled)": the sentence the chart's picture says. */
export const summarize = (u: { yes: number; no: number }) =>
  `${u.yes} enabled, ${u.no} not enabled (${percent(u.yes, u.yes + u.no)}% enabled)`;

/** How often SDKs evaluated the flag in the last 48 hours, per environment and hour. */
export function FlagMetrics(props: { projectId: string; flagName: string }) {
  const { projectId, flagName } = props;
  const metrics = useQuery({
    queryKey: [...keys.flag(projectId, flagName), 'metrics'],
    queryFn: () => get<{ data: MetricsRow[] }>(`api/admin/client-metrics/features/${enc(flagName)}/raw`),
  });
  const usage = metrics.data ? usageByEnvironment(metrics.data.data, Date.now()) : [];
  return (
    <Card withBorder component="section" aria-labelledby="flag-metrics-title">
      <Title order={2} size="h4" id="flag-metrics-title" mb="sm">
        Metrics, last 48 hours
      </Title>
      {metrics.isPending ? (
        <Loading />
      ) : metrics.isError ? (
        <ErrorState error={metrics.error} />
      ) : usage.length === 0 ? (
        <Empty>No metrics in the last 48 hours: no SDK has reported evaluating {flagName}.</Empty>
      ) : (
        <Stack>
          <Legend />
          {usage.map((u) => (
            <EnvironmentChart key={u.environment} flagName={flagName} usage={u} />
          ))}
        </Stack>
      )}
    </Card>
  );
}

function Legend() {
  const swatch = (color: string) => (
    <Box w={12} h={12} bg={color} style={{ borderRadius: 2 }} aria-hidden="true" />
  );
  return (
    <Group gap="md" aria-label="Legend">
      <Group gap={4}>
        {swatch(ON_COLOR)}
        <Text size="sm">Enabled (lower part of each bar)</Text>
      </Group>
      <Group gap={4}>
        {swatch(NOT_ENABLED_COLOR)}
        <Text size="sm">Not enabled (upper part)</Text>
      </Group>
    </Group>
  );
}

const W = 640;
const H = 160;
const LEFT = 40;
const BOTTOM = 20;

function EnvironmentChart({ flagName, usage: u }: { flagName: string; usage: EnvironmentUsage }) {
  const max = Math.max(1, ...u.hours.map((h) => h.yes + h.no));
  const slot = (W - LEFT) / HOURS;
  const scale = (n: number) => (n / max) * (H - BOTTOM - 8);
  const id = `metrics-${u.environment.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const hourLabel = (start: number) =>
    new Date(start).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });
  const busy = u.hours.filter((h) => h.yes + h.no > 0);
  const variantTotal = u.variants.reduce((sum, [, count]) => sum + count, 0);
  return (
    <Stack gap={4}>
      <Title order={3} size="h5">
        {u.environment}
      </Title>
      <Text size="sm" id={`${id}-summary`}>
        {summarize(u)}
      </Text>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        style={{ maxWidth: W, display: 'block' }}
        role="img"
        aria-labelledby={`${id}-title`}
      >
        <title id={`${id}-title`}>
          {`Evaluations of ${flagName} in ${u.environment} per hour, last 48 hours: ${summarize(u)}`}
        </title>
        <line x1={LEFT} x2={W} y1={H - BOTTOM} y2={H - BOTTOM} stroke="currentColor" strokeWidth={1} />
        <text x={LEFT - 4} y={12} textAnchor="end" fontSize={11} fill="currentColor">
          {max}
        </text>
        <text x={LEFT - 4} y={H - BOTTOM} textAnchor="end" fontSize={11} fill="currentColor">
          0
        </text>
        {[
          [0, '48 h ago'],
          [HOURS / 2, '24 h ago'],
          [HOURS - 1, 'this hour'],
        ].map(([i, label]) => (
          <text
            key={label}
            x={LEFT + (Number(i) + 0.5) * slot}
            y={H - 4}
            textAnchor={i === 0 ? 'start' : i === HOURS - 1 ? 'end' : 'middle'}
            fontSize={11}
            fill="currentColor"
          >
            {label}
          </text>
        ))}
        {u.hours.map((h, i) => {
          const x = LEFT + i * slot + 1;
          const yesH = scale(h.yes);
          const noH = scale(h.no);
          const base = H - BOTTOM;
          return (
            <g key={h.start}>
              <title>{`${hourLabel(h.start)}: ${h.yes} enabled, ${h.no} not enabled`}</title>
              {h.yes > 0 && <rect x={x} y={base - yesH} width={slot - 2} height={yesH} fill={ON_COLOR} />}
              {h.no > 0 && (
                // A one-unit gap keeps the two parts apart where their colours are close.
                <rect
                  x={x}
                  y={base - yesH - noH}
                  width={slot - 2}
                  height={Math.max(0, noH - 1)}
                  fill={NOT_ENABLED_COLOR}
                />
              )}
            </g>
          );
        })}
      </svg>
      <details>
        <summary>
          <Text span size="sm">
            Hourly counts in {u.environment} as a table
          </Text>
        </summary>
        <Table aria-label={`Hourly evaluations in ${u.environment}`} maw={480}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Hour</Table.Th>
              <Table.Th>Enabled</Table.Th>
              <Table.Th>Not enabled</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {busy.map((h) => (
              <Table.Tr key={h.start}>
                <Table.Td>{hourLabel(h.start)}</Table.Td>
                <Table.Td>{h.yes}</Table.Td>
                <Table.Td>{h.no}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </details>
      {u.variants.length > 0 && (
        <Text size="sm">
          Variants in {u.environment}:{' '}
          {u.variants
            .map(([name, count]) => `${name} ${count} (${percent(count, variantTotal)}%)`)
            .join(', ')}
        </Text>
      )}
    </Stack>
  );
}
