import { Table, Text } from '@mantine/core';
import { useId } from 'react';

/**
 * Hand-written SVG charts for the project status page. Each has an accessible name and a summary
 * (role img), shows its numbers as text or size as well as colour, and comes with a data table.
 */

const TEXT = 'var(--mantine-color-text)';
const BAR = 'var(--mantine-primary-color-filled)';
const EMPTY = 'var(--mantine-color-gray-6)';

export interface FunnelRow {
  label: string;
  count: number;
  /** Mean whole days flags stayed in the stage before moving on; null when none has. */
  averageDays: number | null;
}

const days = (n: number | null) =>
  n === null ? 'no flag has left it yet' : `${n} ${n === 1 ? 'day' : 'days'}`;

export const funnelSummary = (rows: FunnelRow[]) => rows.map((r) => `${r.label} ${r.count}`).join(', ');

/** Flags per lifecycle stage as horizontal bars, the count and the mean days written beside each. */
export function LifecycleFunnel({ rows }: { rows: FunnelRow[] }) {
  const titleId = useId();
  const descId = useId();
  const max = Math.max(1, ...rows.map((r) => r.count));
  const labelWidth = 100;
  const barWidth = 300;
  const rowHeight = 34;
  const height = rows.length * rowHeight;
  return (
    <figure style={{ margin: 0 }}>
      <svg
        role="img"
        aria-labelledby={`${titleId} ${descId}`}
        viewBox={`0 0 640 ${height}`}
        width="100%"
        style={{ maxWidth: 640, display: 'block' }}
      >
        <title id={titleId}>Flags per lifecycle stage</title>
        <desc id={descId}>{funnelSummary(rows)}.</desc>
        {rows.map((r, i) => {
          const y = i * rowHeight;
          const width = (r.count / max) * barWidth;
          return (
            <g key={r.label}>
              <text x={0} y={y + 21} fill={TEXT} fontSize={14}>
                {r.label}
              </text>
              <rect x={labelWidth} y={y + 6} width={barWidth} height={22} fill="none" stroke={EMPTY} />
              <rect x={labelWidth} y={y + 6} width={width} height={22} fill={BAR} />
              <text x={labelWidth + barWidth + 10} y={y + 21} fill={TEXT} fontSize={14}>
                {r.count} {r.count === 1 ? 'flag' : 'flags'}
                {r.averageDays !== null ? ` · mean ${days(r.averageDays)}` : ''}
              </text>
            </g>
          );
        })}
      </svg>
      <details>
        <summary>Lifecycle data as a table</summary>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Stage</Table.Th>
              <Table.Th>Flags now</Table.Th>
              <Table.Th>Mean time in stage</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={r.label}>
                <Table.Td>{r.label}</Table.Td>
                <Table.Td>{r.count}</Table.Td>
                <Table.Td>{days(r.averageDays)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </details>
    </figure>
  );
}

const DAY = 86_400_000;
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The last `span` UTC days ending with `today`, oldest first, with their counts (0 when absent). */
export function dailySeries(activity: { date: string; count: number }[], today: number, span = 365) {
  const counts = new Map<string, number>();
  for (const a of activity) {
    const day = a.date.slice(0, 10);
    counts.set(day, (counts.get(day) ?? 0) + a.count);
  }
  const end = Date.UTC(
    new Date(today).getUTCFullYear(),
    new Date(today).getUTCMonth(),
    new Date(today).getUTCDate(),
  );
  return Array.from({ length: span }, (_, i) => {
    const date = isoDay(end - (span - 1 - i) * DAY);
    return { date, count: counts.get(date) ?? 0 };
  });
}

/** 0 for no change, else 1–4 by the share of the busiest day. */
export const level = (count: number, max: number) =>
  count === 0 ? 0 : Math.max(1, Math.ceil((count / max) * 4));

const CELL = 12;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Changes per day as a calendar (a column per week, Monday on top). A busier day draws a larger
 * and darker square, so the size alone tells the level too.
 */
export function ActivityHeatmap({
  activity,
  today,
}: {
  activity: { date: string; count: number }[];
  today: number;
}) {
  const titleId = useId();
  const descId = useId();
  const series = dailySeries(activity, today);
  const max = Math.max(1, ...series.map((d) => d.count));
  const total = series.reduce((sum, d) => sum + d.count, 0);
  const active = series.filter((d) => d.count > 0);
  const busiest = active.reduce<{ date: string; count: number } | undefined>(
    (best, d) => (!best || d.count > best.count ? d : best),
    undefined,
  );
  const summary =
    total === 0
      ? 'No changes in the last 365 days.'
      : `${total} ${total === 1 ? 'change' : 'changes'} on ${active.length} ${active.length === 1 ? 'day' : 'days'} in the last 365 days; busiest day ${busiest?.date} with ${busiest?.count}.`;
  // Monday = row 0; the first column starts on the Monday on or before the first day.
  const firstRow = (new Date(`${series[0]?.date}T00:00:00Z`).getUTCDay() + 6) % 7;
  const left = 30;
  const top = 18;
  const cells = series.map((d, i) => ({
    ...d,
    col: Math.floor((i + firstRow) / 7),
    row: (i + firstRow) % 7,
  }));
  const columns = (cells.at(-1)?.col ?? 0) + 1;
  const width = left + columns * CELL + 4;
  const height = top + 7 * CELL + 4;
  const monthLabels = cells.filter((c) => c.date.endsWith('-01'));
  return (
    <figure style={{ margin: 0 }}>
      <Text size="sm" mb={4}>
        {summary}
      </Text>
      <svg
        role="img"
        aria-labelledby={`${titleId} ${descId}`}
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        style={{ maxWidth: width * 1.6, display: 'block' }}
      >
        <title id={titleId}>Changes per day, last 365 days</title>
        <desc id={descId}>{summary}</desc>
        {monthLabels.map((c) => (
          <text key={c.date} x={left + c.col * CELL} y={11} fill={TEXT} fontSize={10}>
            {MONTHS[Number(c.date.slice(5, 7)) - 1]}
          </text>
        ))}
        {['Mon', 'Wed', 'Fri'].map((name, i) => (
          <text key={name} x={0} y={top + i * 2 * CELL + 9} fill={TEXT} fontSize={9}>
            {name}
          </text>
        ))}
        {cells.map((c) => {
          const l = level(c.count, max);
          const size = l === 0 ? CELL - 3 : 4 + l * 2;
          const offset = (CELL - size) / 2;
          return (
            <rect
              key={c.date}
              x={left + c.col * CELL + offset}
              y={top + c.row * CELL + offset}
              width={size}
              height={size}
              fill={l === 0 ? 'none' : BAR}
              fillOpacity={l === 0 ? undefined : 0.4 + l * 0.15}
              stroke={l === 0 ? EMPTY : 'none'}
              strokeWidth={0.5}
            >
              <title>{`${c.date}: ${c.count} ${c.count === 1 ? 'change' : 'changes'}`}</title>
            </rect>
          );
        })}
      </svg>
      <Text size="xs" c="dimmed">
        Each square is a day: the larger and darker, the more changes; an outline only, none.
      </Text>
      <details>
        <summary>
          Activity data as a table ({active.length} {active.length === 1 ? 'day' : 'days'} with changes)
        </summary>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Date (UTC)</Table.Th>
              <Table.Th>Changes</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {[...active].reverse().map((d) => (
              <Table.Tr key={d.date}>
                <Table.Td>{d.date}</Table.Td>
                <Table.Td>{d.count}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </details>
    </figure>
  );
}
