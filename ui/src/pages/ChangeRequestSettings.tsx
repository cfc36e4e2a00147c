import { Card, Group, NumberInput, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { enc, notifyDone, put } from '../api';
import { type ChangeRequestConfig, crKeys, useChangeRequestConfig } from '../changeRequests';
import { ErrorState, Loading } from '../components';
import { MutationError } from '../dialogs';
import { useCan } from '../session';

/** Which environments of the project require change requests, and how many approvals. */
export function ChangeRequestSettings({ projectId }: { projectId: string }) {
  const config = useChangeRequestConfig(projectId);
  const canEdit = useCan()('UPDATE_PROJECT', projectId);
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: (c: { environment: string; enabled: boolean; approvals: number }) =>
      put(`api/admin/projects/${enc(projectId)}/environments/${enc(c.environment)}/change-requests/config`, {
        changeRequestsEnabled: c.enabled,
        requiredApprovals: c.approvals,
      }),
    onSuccess: (_d, c) =>
      notifyDone(
        c.enabled
          ? `Change requests required in ${c.environment} (${c.approvals} approval${c.approvals > 1 ? 's' : ''}).`
          : `Change requests no longer required in ${c.environment}.`,
      ),
    onSettled: () => client.invalidateQueries({ queryKey: crKeys.config(projectId) }),
  });
  if (config.isPending) return <Loading />;
  if (config.isError) return <ErrorState error={config.error} />;
  const row = (c: ChangeRequestConfig) => {
    const approvals = c.requiredApprovals ?? 1;
    return (
      <Table.Tr key={c.environment}>
        <Table.Td>{c.environment}</Table.Td>
        <Table.Td>
          <Switch
            aria-label={`Change requests in ${c.environment}`}
            checked={c.changeRequestEnabled}
            disabled={!canEdit}
            onChange={(e) =>
              save.mutate({ environment: c.environment, enabled: e.currentTarget.checked, approvals })
            }
          />
        </Table.Td>
        <Table.Td>
          <NumberInput
            aria-label={`Approvals required in ${c.environment}`}
            min={1}
            max={10}
            w={90}
            value={approvals}
            disabled={!canEdit || !c.changeRequestEnabled}
            onChange={(value) =>
              typeof value === 'number' &&
              value >= 1 &&
              value <= 10 &&
              save.mutate({ environment: c.environment, enabled: true, approvals: value })
            }
          />
        </Table.Td>
      </Table.Tr>
    );
  };
  return (
    <Card withBorder component="section" aria-label="Change requests">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h4">
            Change requests
          </Title>
        </Group>
        <Text size="sm" c="dimmed">
          Where they are required, changes to flags go into a change request that others approve before it
          applies. Only Admins (or roles granted SKIP_CHANGE_REQUEST) change such an environment directly.
        </Text>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Environment</Table.Th>
              <Table.Th>Required</Table.Th>
              <Table.Th>Approvals</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>{config.data.map(row)}</Table.Tbody>
        </Table>
        <MutationError error={save.error} />
      </Stack>
    </Card>
  );
}
