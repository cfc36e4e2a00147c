import { Anchor, Breadcrumbs, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { enc, get } from '../api';
import { ErrorState, Loading } from '../components';
import { useHealthHistory, useHealthReport } from '../queries';
import { HealthChart } from './HealthChart';
import { ActivityHeatmap, type FunnelRow, LifecycleFunnel } from './StatusCharts';

/** `GET api/admin/projects/:id/status` (openapi.json, getProjectStatus): the parts shown here. */
interface StageSummary {
  averageDays: number | null;
  currentFlags: number;
}
interface ProjectStatus {
  activityCountByDate: { date: string; count: number }[];
  resources: { apiTokens: number; members: number; segments: number };
  health: { current: number };
  technicalDebt: { current: number };
  lifecycleSummary: Record<'initial' | 'preLive' | 'live' | 'completed' | 'archived', StageSummary>;
  staleFlags: { total: number };
}
/** `GET …/insights` (getProjectInsights): the 30-day figures. */
interface ProjectInsights {
  stats: {
    createdCurrentWindow: number;
    archivedCurrentWindow: number;
    projectActivityCurrentWindow: number;
  };
  leadTime: { projectAverage: number };
}

const STAGES = [
  { key: 'initial', label: 'Initial' },
  { key: 'preLive', label: 'Pre-live' },
  { key: 'live', label: 'Live' },
  { key: 'completed', label: 'Completed' },
  { key: 'archived', label: 'Archived' },
] as const;

/** Days of the health chart, today included. */
const HISTORY_DAYS = 30;

/** A project's status: health and debt figures, the lifecycle funnel and a year of activity. */
export default function ProjectStatusPage() {
  const { projectId } = useParams() as { projectId: string };
  const base = `api/admin/projects/${enc(projectId)}`;
  const status = useQuery({
    queryKey: ['project-status', projectId],
    queryFn: () => get<ProjectStatus>(`${base}/status`),
  });
  const insights = useQuery({
    queryKey: ['project-insights', projectId],
    queryFn: () => get<ProjectInsights>(`${base}/insights`),
  });
  const report = useHealthReport(projectId);
  const history = useHealthHistory(projectId, HISTORY_DAYS);
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/projects">
          Projects
        </Anchor>
        <Anchor component={Link} to={`/projects/${enc(projectId)}`}>
          {projectId}
        </Anchor>
        <Text>Status</Text>
      </Breadcrumbs>
      <Title order={1} size="h2">
        Status of {projectId}
      </Title>
      {status.isPending ? (
        <Loading />
      ) : status.isError ? (
        <ErrorState error={status.error} />
      ) : (
        <>
          <Section title="Health">
            <Figures>
              <Figure label="Health" value={`${status.data.health.current}%`} />
              <Figure label="Technical debt" value={`${status.data.technicalDebt.current}%`} />
              <Figure label="Stale or potentially stale flags" value={status.data.staleFlags.total} />
              {report.data && (
                <>
                  <Figure label="Stale flags" value={report.data.staleCount} />
                  <Figure label="Potentially stale flags" value={report.data.potentiallyStaleCount} />
                  <Figure label="Active flags" value={report.data.activeCount} />
                </>
              )}
            </Figures>
            {report.isError && <ErrorState error={report.error} />}
            <Text size="sm" c="dimmed">
              Health is the share of flags neither stale nor potentially stale (past their type's expected
              lifetime); technical debt is the rest.
            </Text>
          </Section>
          <Section title="Health over time">
            {history.isError ? (
              <ErrorState error={history.error} />
            ) : history.data ? (
              <HealthChart days={history.data.days} span={HISTORY_DAYS} />
            ) : (
              <Loading />
            )}
          </Section>
          <Section title="Lifecycle">
            <LifecycleFunnel
              rows={STAGES.map(
                (s): FunnelRow => ({
                  label: s.label,
                  count: status.data.lifecycleSummary[s.key].currentFlags,
                  averageDays: status.data.lifecycleSummary[s.key].averageDays,
                }),
              )}
            />
          </Section>
          <Section title="Activity">
            <ActivityHeatmap activity={status.data.activityCountByDate} today={Date.now()} />
          </Section>
          <Section title="Last 30 days">
            {insights.isError ? (
              <ErrorState error={insights.error} />
            ) : (
              insights.data && (
                <Figures>
                  <Figure label="Flags created" value={insights.data.stats.createdCurrentWindow} />
                  <Figure label="Flags archived" value={insights.data.stats.archivedCurrentWindow} />
                  <Figure label="Changes" value={insights.data.stats.projectActivityCurrentWindow} />
                  <Figure label="Mean days to production" value={insights.data.leadTime.projectAverage} />
                </Figures>
              )
            )}
          </Section>
          <Section title="Resources">
            <Figures>
              <Figure label="Members" value={status.data.resources.members} />
              <Figure label="API tokens" value={status.data.resources.apiTokens} />
              <Figure label="Segments" value={status.data.resources.segments} />
            </Figures>
          </Section>
        </>
      )}
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `status-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <Card withBorder component="section" aria-labelledby={id} padding="sm">
      <Title order={2} size="h4" id={id} mb="xs">
        {title}
      </Title>
      <Stack gap="xs">{children}</Stack>
    </Card>
  );
}

/** Figures as a description list: the label, then the number in large type. */
function Figures({ children }: { children: ReactNode }) {
  return (
    <SimpleGrid component="dl" cols={{ base: 2, sm: 3, md: 6 }} spacing="sm" m={0}>
      {children}
    </SimpleGrid>
  );
}

function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="sm">
        {label}
      </Text>
      <Text component="dd" m={0} fz={24} fw={700}>
        {value}
      </Text>
    </div>
  );
}
