import { Anchor, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { enc, get } from '../api';
import { type ChangeRequest, changeCount, crKeys } from '../changeRequests';
import { Empty, ErrorState, Loading } from '../components';
import { useMe } from '../session';
import { StateBadge } from './ChangeRequest';

const OPEN = ['Draft', 'In review', 'Approved', 'Scheduled'];

/** A project's change requests: open or closed, or those waiting for the viewer's review. */
export default function ChangeRequestsPage() {
  const { projectId = '' } = useParams();
  const me = useMe().data?.user.id;
  const [filter, setFilter] = useState('open');
  const list = useQuery({
    queryKey: crKeys.list(projectId),
    queryFn: () => get<ChangeRequest[]>(`api/admin/projects/${enc(projectId)}/change-requests`),
  });
  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorState error={list.error} />;
  const shown = list.data.filter((r) =>
    filter === 'open'
      ? OPEN.includes(r.state)
      : filter === 'review'
        ? r.state === 'In review' && r.createdBy.id !== me
        : !OPEN.includes(r.state),
  );
  const counts = (f: (r: ChangeRequest) => boolean) => list.data.filter(f).length;
  return (
    <Stack>
      <Anchor component={Link} to={`/projects/${enc(projectId)}`} size="sm">
        ← {projectId}
      </Anchor>
      <Title order={1} size="h2">
        Change requests of {projectId}
      </Title>
      <SegmentedControl
        aria-label="Show"
        value={filter}
        onChange={setFilter}
        data={[
          { value: 'open', label: `Open (${counts((r) => OPEN.includes(r.state))})` },
          {
            value: 'review',
            label: `Needs my review (${counts((r) => r.state === 'In review' && r.createdBy.id !== me)})`,
          },
          { value: 'closed', label: `Closed (${counts((r) => !OPEN.includes(r.state))})` },
        ]}
      />
      {shown.length === 0 ? (
        <Empty>No change requests here.</Empty>
      ) : (
        <Table aria-label="Change requests">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Title</Table.Th>
              <Table.Th>Environment</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>Changes</Table.Th>
              <Table.Th>State</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/projects/${enc(projectId)}/change-requests/${r.id}`}>
                    {r.title}
                  </Anchor>
                </Table.Td>
                <Table.Td>{r.environment}</Table.Td>
                <Table.Td>{r.createdBy.username}</Table.Td>
                <Table.Td>
                  <Text size="sm">
                    {changeCount(r)} in {r.features.map((f) => f.name).join(', ') || 'segments'}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <StateBadge state={r.state} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
