import { Anchor, Badge, Card, Group, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { enc, get } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { useMe } from '../session';

/** GET api/admin/personal-dashboard, the parts shown here (src/features/personal-dashboard). */
export interface PersonalDashboard {
  projects: {
    id: string;
    name: string;
    health: number;
    technicalDebt: number;
    memberCount: number;
    featureCount: number;
  }[];
  flags: { name: string; project: string; type: string }[];
}

/** A flag as the search lists it, the fields the home page reads (src/features/search). */
export interface AttentionFlag {
  name: string;
  project: string;
  type: string;
  stale: boolean;
  potentiallyStale: boolean;
  lifecycle: { stage: string; status: string | null; enteredStageAt: string } | null;
}

/** Why a flag needs attention, most pressing first; empty: it does not. */
export function reasons(f: AttentionFlag): string[] {
  return [
    ...(f.stale ? ['stale'] : []),
    ...(f.potentiallyStale && !f.stale ? ['potentially stale'] : []),
    ...(f.lifecycle?.stage === 'completed'
      ? [f.lifecycle.status ? `completed (${f.lifecycle.status}): clean up` : 'completed: clean up']
      : []),
  ];
}

const LIMIT = 100;
const flagPath = (project: string, name: string) => `/projects/${enc(project)}/flags/${enc(name)}`;

/**
 * The flags that need attention: stale or potentially stale, or completed (their code can go and
 * the flag be archived), in the given projects (all when none are given). Two searches, as the
 * search ANDs its filters; a flag found by both is listed once.
 */
async function needsAttention(projects: string[]) {
  const search = async (filter: Record<string, string>) => {
    const qs = new URLSearchParams({ ...filter, sortBy: 'name', limit: String(LIMIT) });
    if (projects.length) qs.set('project', `IS_ANY_OF:${projects.join(',')}`);
    return get<{ features: AttentionFlag[]; total: number }>(`api/admin/search/features?${qs}`);
  };
  const [stale, completed] = await Promise.all([
    search({ state: 'IS_ANY_OF:stale,potentially-stale' }),
    search({ lifecycle: 'IS:completed' }),
  ]);
  const byKey = new Map<string, AttentionFlag>();
  for (const f of [...stale.features, ...completed.features]) byKey.set(`${f.project}/${f.name}`, f);
  const rank = (f: AttentionFlag) => (f.stale ? 0 : f.potentiallyStale ? 1 : 2);
  const flags = [...byKey.values()].sort(
    (a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name) || a.project.localeCompare(b.project),
  );
  // More than a page of either: say so rather than pretend the list is complete.
  const more =
    Math.max(0, stale.total - stale.features.length) +
    Math.max(0, completed.total - completed.features.length);
  return { flags, more };
}

/** The home page: what needs attention, the user's projects with their health and the user's flags. */
export default function HomePage() {
  const me = useMe();
  const dashboard = useQuery({
    queryKey: ['personal-dashboard'],
    queryFn: () => get<PersonalDashboard>('api/admin/personal-dashboard'),
  });
  const who = me.data?.user.name || me.data?.user.username || me.data?.user.email;
  return (
    <Stack>
      <Title order={1} size="h2">
        {who ? `Welcome, ${who}` : 'Home'}
      </Title>
      {dashboard.isPending ? (
        <Loading />
      ) : dashboard.isError ? (
        <ErrorState error={dashboard.error} />
      ) : (
        <>
          <NeedsAttention dashboard={dashboard.data} />
          <YourProjects projects={dashboard.data.projects} />
          <YourFlags flags={dashboard.data.flags} />
        </>
      )}
    </Stack>
  );
}

function NeedsAttention({ dashboard }: { dashboard: PersonalDashboard }) {
  // The user's projects and those of the user's flags; with none of either, every project.
  const mine = [
    ...new Set([...dashboard.projects.map((p) => p.id), ...dashboard.flags.map((f) => f.project)]),
  ].sort();
  const [scope, setScope] = useState<'mine' | 'all'>(mine.length ? 'mine' : 'all');
  const projects = scope === 'mine' ? mine : [];
  const attention = useQuery({
    queryKey: ['needs-attention', projects],
    queryFn: () => needsAttention(projects),
  });
  return (
    <Card withBorder component="section" aria-labelledby="needs-attention">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="needs-attention">
          Needs attention
        </Title>
        {mine.length > 0 && (
          <SegmentedControl
            size="xs"
            aria-label="Which projects"
            value={scope}
            onChange={(v) => setScope(v as 'mine' | 'all')}
            data={[
              { value: 'mine', label: 'Your projects' },
              { value: 'all', label: 'All projects' },
            ]}
          />
        )}
      </Group>
      <Text size="sm" mb="xs">
        Flags marked stale or past their expected lifetime (potentially stale), and completed flags whose code
        can be removed and which can then be archived
        {scope === 'mine' ? ', in your projects and those of your flags.' : ', in all projects.'}
      </Text>
      {attention.isPending ? (
        <Loading />
      ) : attention.isError ? (
        <ErrorState error={attention.error} />
      ) : attention.data.flags.length === 0 ? (
        <Empty>Nothing needs attention.</Empty>
      ) : (
        <>
          <Table striped aria-label="Flags that need attention">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Flag</Table.Th>
                <Table.Th>Project</Table.Th>
                <Table.Th>Why</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {attention.data.flags.map((f) => (
                <Table.Tr key={`${f.project}/${f.name}`}>
                  <Table.Td>
                    <Anchor component={Link} to={flagPath(f.project, f.name)}>
                      {f.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/projects/${enc(f.project)}`}>
                      {f.project}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {reasons(f).map((r) => (
                        <Badge
                          key={r}
                          color={r === 'stale' ? 'red.9' : r === 'potentially stale' ? 'gray.8' : 'indigo.8'}
                        >
                          {r}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {attention.data.more > 0 && (
            <Text size="sm" mt="xs">
              And {attention.data.more} more: see the projects' flag lists.
            </Text>
          )}
        </>
      )}
    </Card>
  );
}

function YourProjects({ projects }: { projects: PersonalDashboard['projects'] }) {
  return (
    <Card withBorder component="section" aria-labelledby="your-projects">
      <Title order={2} size="h4" id="your-projects" mb="xs">
        Your projects
      </Title>
      {projects.length === 0 ? (
        <Empty>
          You hold no role in any project.{' '}
          <Anchor component={Link} to="/projects">
            See all projects
          </Anchor>
        </Empty>
      ) : (
        <Table striped aria-label="Your projects">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Project</Table.Th>
              <Table.Th>Health</Table.Th>
              <Table.Th>Flags</Table.Th>
              <Table.Th>Members</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {projects.map((p) => (
              <Table.Tr key={p.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/projects/${enc(p.id)}`}>
                    {p.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Anchor
                    component={Link}
                    to={`/projects/${enc(p.id)}/status`}
                    aria-label={`Health of ${p.name}: ${p.health}%, see its status`}
                  >
                    {p.health}%
                  </Anchor>
                </Table.Td>
                <Table.Td>{p.featureCount}</Table.Td>
                <Table.Td>{p.memberCount}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}

function YourFlags({ flags }: { flags: PersonalDashboard['flags'] }) {
  return (
    <Card withBorder component="section" aria-labelledby="your-flags">
      <Title order={2} size="h4" id="your-flags" mb="xs">
        Your flags
      </Title>
      <Text size="sm" mb="xs">
        Flags you created or marked as favorite.
      </Text>
      {flags.length === 0 ? (
        <Empty>No flags created or favorited by you.</Empty>
      ) : (
        <Table striped aria-label="Your flags">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Flag</Table.Th>
              <Table.Th>Project</Table.Th>
              <Table.Th>Type</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {flags.map((f) => (
              <Table.Tr key={`${f.project}/${f.name}`}>
                <Table.Td>
                  <Anchor component={Link} to={flagPath(f.project, f.name)}>
                    {f.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{f.project}</Table.Td>
                <Table.Td>{f.type}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}
