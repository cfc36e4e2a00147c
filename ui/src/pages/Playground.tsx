import { Badge, Button, Group, JsonInput, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { post } from '../api';
import { Empty, ErrorState, OFF_COLOR, ON_COLOR } from '../components';
import { useEnvironments, useProjects } from '../queries';

interface PlaygroundResult {
  features: {
    name: string;
    projectId: string;
    isEnabled: boolean;
    variant: { name: string; enabled: boolean } | null;
  }[];
}

/** Which flags are on for a context: fields plus free JSON properties, per environment. */
export default function PlaygroundPage() {
  const [params, setParams] = useSearchParams();
  const environments = useEnvironments();
  const projects = useProjects();
  const [appName, setAppName] = useState(params.get('appName') ?? 'playground');
  const [userId, setUserId] = useState(params.get('userId') ?? '');
  const [sessionId, setSessionId] = useState('');
  const [remoteAddress, setRemoteAddress] = useState('');
  const [properties, setProperties] = useState('{}');
  const environment = params.get('environment') ?? environments.data?.[0]?.name ?? 'development';
  const project = params.get('project');
  const setParam = (key: string, value: string | null) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const run = useMutation({
    mutationFn: () => {
      const parsed = JSON.parse(properties || '{}') as Record<string, string>;
      const context = {
        appName,
        ...(userId && { userId }),
        ...(sessionId && { sessionId }),
        ...(remoteAddress && { remoteAddress }),
        properties: parsed,
      };
      return post<PlaygroundResult>('api/admin/playground', {
        environment,
        projects: project ? [project] : '*',
        context,
      });
    },
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Playground
      </Title>
      <Text c="dimmed">Which flags are enabled for a user, in one environment.</Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          run.mutate();
        }}
      >
        <Stack>
          <Group align="end">
            <Select
              label="Environment"
              data={(environments.data ?? []).map((e) => e.name)}
              value={environment}
              onChange={(v) => setParam('environment', v)}
              allowDeselect={false}
              w={180}
            />
            <Select
              label="Project"
              placeholder="All projects"
              data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
              value={project}
              onChange={(v) => setParam('project', v)}
              clearable
              w={200}
            />
          </Group>
          <Group align="end">
            <TextInput label="appName" value={appName} onChange={(e) => setAppName(e.currentTarget.value)} />
            <TextInput label="userId" value={userId} onChange={(e) => setUserId(e.currentTarget.value)} />
            <TextInput
              label="sessionId"
              value={sessionId}
              onChange={(e) => setSessionId(e.currentTarget.value)}
            />
            <TextInput
              label="remoteAddress"
              value={remoteAddress}
              onChange={(e) => setRemoteAddress(e.currentTarget.value)}
            />
          </Group>
          <JsonInput
            label="Other properties (JSON)"
            value={properties}
            onChange={setProperties}
            validationError="Not valid JSON"
            autosize
            minRows={2}
            maw={600}
          />
          <Group>
            <Button type="submit" loading={run.isPending}>
              Evaluate
            </Button>
          </Group>
        </Stack>
      </form>
      {run.isError && <ErrorState error={run.error} />}
      {run.data &&
        (run.data.features.length === 0 ? (
          <Empty>No flags in the chosen projects.</Empty>
        ) : (
          <Table striped aria-label="Playground result">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Flag</Table.Th>
                <Table.Th>Project</Table.Th>
                <Table.Th>Enabled</Table.Th>
                <Table.Th>Variant</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {run.data.features.map((f) => (
                <Table.Tr key={`${f.projectId}/${f.name}`}>
                  <Table.Td>{f.name}</Table.Td>
                  <Table.Td>{f.projectId}</Table.Td>
                  <Table.Td>
                    <Badge color={f.isEnabled ? ON_COLOR : OFF_COLOR}>{String(f.isEnabled)}</Badge>
                  </Table.Td>
                  <Table.Td>{f.variant?.enabled ? f.variant.name : '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ))}
    </Stack>
  );
}
