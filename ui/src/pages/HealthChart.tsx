import { Table, Text } from '@mantine/core';
import { useId } from 'react';

/**
 * Project health over time as a hand-written SVG line chart, in the manner of StatusCharts.tsx: an
 * accessible name and a summary (role img), every point's figure in its tooltip, and the data as a
 * table.
 */

const TEXT = 'var(--mantine-color-text)';
const LINE = 'var(--mantine-primary-color-filled)';
const GRID = 'var(--mantine-color-gray-6)';

/** One day of `GET …/health-history` (getProjectHealthHistory). */
export interface HealthDay {
  date: string;
  health: number;
  flags: number;
  stale: number;
  potentiallyStale: number;
}

const DAY = 86_400_000;
const dayNumber = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY);
const isoDay = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);

/** What the chart says in words: today's health, and the range over the days shown. */
export function healthSummary(days: HealthDay[], span: number) {
  const last = days.at(-1);
  if (!last) return 'No health figures.';
  const today = `Health ${last.health}% today (${last.date})`;
  if (days.length === 1) return `${today}; no earlier day recorded in the last ${span} days.`;
  const first = days[0] as HealthDay;
  const lowest = days.reduce((low, d) => (d.health < low.health ? d : low), first);
  const highest = days.reduce((high, d) => (d.health > high.health ? d : high), first);
  return `${today}, from ${first.health}% on ${first.date}; lowest ${lowest.health}% on ${lowest.date}, highest ${highest.health}% on ${highest.date}, over ${days.length} recorded days in the last ${span}.`;
}

/**
 * Health (0–100) per UTC day over the last `span` days, today at the right edge. Days without a
 * record are gaps in the x axis: the line joins the days there are, each marked with a dot.
 */
export function HealthChart({ days, span }: { days: HealthDay[]; span: number }) {
  const titleId = useId();
  const descId = useId();
  const summary = healthSummary(days, span);
  const left = 40;
  const right = 16;
  const top = 10;
  const plotWidth = 584;
  const plotHeight = 160;
  const width = left + plotWidth + right;
  const height = top + plotHeight + 30;
  const end = days.length > 0 ? dayNumber((days.at(-1) as HealthDay).date) : Math.floor(Date.now() / DAY);
  const start = end - (span - 1);
  const xOf = (n: number) => left + (span === 1 ? plotWidth : ((n - start) / (span - 1)) * plotWidth);
  const y = (health: number) => top + plotHeight - (health / 100) * plotHeight;
  const points = days.map((d) => ({ ...d, cx: xOf(dayNumber(d.date)), cy: y(d.health) }));
  const ticks = span === 1 ? [end] : [...new Set([start, Math.round((start + end) / 2), end])];
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
        style={{ maxWidth: width, display: 'block' }}
      >
        <title id={titleId}>Health per day, last {span} days</title>
        <desc id={descId}>{summary}</desc>
        {[0, 25, 50, 75, 100].map((h) => (
          <g key={h}>
            <line
              x1={left}
              x2={left + plotWidth}
              y1={y(h)}
              y2={y(h)}
              stroke={GRID}
              strokeWidth={h === 0 ? 1 : 0.5}
              strokeDasharray={h === 0 ? undefined : '3 3'}
            />
            <text x={left - 6} y={y(h) + 4} fill={TEXT} fontSize={11} textAnchor="end">
              {h}%
            </text>
          </g>
        ))}
        {ticks.map((n, i) => (
          <text
            key={n}
            x={xOf(n)}
            y={top + plotHeight + 20}
            fill={TEXT}
            fontSize={11}
            textAnchor={i === 0 && ticks.length > 1 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle'}
          >
            {isoDay(n)}
          </text>
        ))}
        {points.length > 1 && (
          <polyline
            points={points.map((p) => `${p.cx},${p.cy}`).join(' ')}
            fill="none"
            stroke={LINE}
            strokeWidth={2}
            strokeLinejoin="round"
          />
        )}
        {points.map((p) => (
          <circle key={p.date} cx={p.cx} cy={p.cy} r={4} fill={LINE}>
            <title>{`${p.date}: health ${p.health}% (${p.flags} ${p.flags === 1 ? 'flag' : 'flags'}, ${p.stale} stale, ${p.potentiallyStale} potentially stale)`}</title>
          </circle>
        ))}
      </svg>
      <Text size="xs" c="dimmed">
        Each dot is a day the health was recorded; the last is today, computed now.
      </Text>
      <details>
        <summary>
          Health data as a table ({days.length} {days.length === 1 ? 'day' : 'days'})
        </summary>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Date (UTC)</Table.Th>
              <Table.Th>Health</Table.Th>
              <Table.Th>Flags</Table.Th>
              <Table.Th>Stale</Table.Th>
              <Table.Th>Potentially stale</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {[...days].reverse().map((d) => (
              <Table.Tr key={d.date}>
                <Table.Td>{d.date}</Table.Td>
                <Table.Td>{d.health}%</Table.Td>
                <Table.Td>{d.flags}</Table.Td>
                <Table.Td>{d.stale}</Table.Td>
                <Table.Td>{d.potentiallyStale}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </details>
    </figure>
  );
}
