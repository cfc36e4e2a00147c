import { Card, Group, Stack, Text, Title } from '@mantine/core';
import { ErrorState } from '../components';
import { useHealthReport } from '../queries';

const PARTS = [
  { key: 'activeCount', label: 'active', color: 'var(--mantine-color-teal-7)' },
  { key: 'potentiallyStaleCount', label: 'potentially stale', color: 'var(--mantine-color-yellow-6)' },
  { key: 'staleCount', label: 'stale', color: 'var(--mantine-color-red-8)' },
] as const;

/**
 * The project's health from the health report: the percentage and a bar of active, potentially
 * stale and stale flags. An SVG with a label; the numbers are also in the text beside it.
 */
export default function ProjectHealth({ projectId }: { projectId: string }) {
  const report = useHealthReport(projectId);
  if (report.isPending) return null;
  if (report.isError) return <ErrorState error={report.error} />;
  const r = report.data;
  // Potentially stale flags are also counted as active by the report; the bar shows each flag once.
  const counts = {
    activeCount: Math.max(0, r.activeCount - r.potentiallyStaleCount),
    potentiallyStaleCount: r.potentiallyStaleCount,
    staleCount: r.staleCount,
  };
  const total = counts.activeCount + counts.potentiallyStaleCount + counts.staleCount;
  const summary = PARTS.map((p) => `${counts[p.key]} ${p.label}`).join(', ');
  let x = 0;
  return (
    <Card withBorder component="section" aria-label="Project health" padding="sm">
      <Group align="center" gap="lg">
        <Stack gap={0}>
          <Title order={2} size="h4">
            Health {r.health}%
          </Title>
          <Text size="sm">{summary}</Text>
        </Stack>
        <svg
          role="img"
          aria-label={`Flags by state: ${summary}`}
          width={240}
          height={16}
          viewBox="0 0 240 16"
        >
          <rect width={240} height={16} rx={4} fill="var(--mantine-color-gray-3)" />
          {total > 0 &&
            PARTS.map((p) => {
              const w = (counts[p.key] / total) * 240;
              const rect = <rect key={p.key} x={x} width={w} height={16} fill={p.color} />;
              x += w;
              return rect;
            })}
        </svg>
      </Group>
    </Card>
  );
}
