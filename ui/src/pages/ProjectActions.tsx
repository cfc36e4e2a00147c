import {
  Badge,
  Button,
  Card,
  Code,
  Group,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, enc, get, post } from '../api';
import { Empty, ErrorState, Loading, ON_COLOR } from '../components';
import { MutationError } from '../dialogs';
import { useCan } from '../session';
import { useSignalEndpoints } from './SignalsAdmin';

interface Action {
  id: number;
  action: string;
  sortOrder: number;
  executionParams: Record<string, unknown>;
}

interface ActionSet {
  id: number;
  name: string;
  enabled: boolean;
  actorId: number | null;
  match: {
    sourceId: number;
    payload: Record<string, { operator: string; values?: string[]; value?: string }>;
  };
  actions: Action[];
}

interface Run {
  id: number;
  createdAt: string;
  state: string;
  signal: { payload: unknown };
  actionSet: { actions: (Action & { state: string; details?: string | null })[] };
}

type Config = Record<string, { label: string; parameters: { name: string; options?: string[] }[] }>;

const MULTI = ['IN', 'NOT_IN', 'STR_CONTAINS', 'STR_STARTS_WITH', 'STR_ENDS_WITH'];
const OPERATORS = [...MULTI, 'NUM_EQ', 'NUM_GT', 'NUM_LT', 'REGEX'];

const setsKey = (projectId: string) => ['projects', projectId, 'actions'] as const;

/**
 * A project's action sets (Admins): when a signal of an endpoint matches a filter on its payload,
 * turn a flag on or off as a service account; each set's recent runs with every action's outcome.
 */
export function ProjectActions({ projectId }: { projectId: string }) {
  const isAdmin = useCan()('ADMIN');
  if (!isAdmin) return null;
  return <ProjectActionsSection projectId={projectId} />;
}

function ProjectActionsSection({ projectId }: { projectId: string }) {
  const client = useQueryClient();
  const base = `api/admin/projects/${enc(projectId)}/actions`;
  const sets = useQuery({ queryKey: setsKey(projectId), queryFn: () => get<{ actions: ActionSet[] }>(base) });
  const [runsOf, setRunsOf] = useState<number | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: setsKey(projectId) });
  const toggle = useMutation({
    mutationFn: (s: { id: number; on: boolean }) => post(`${base}/${s.id}/${s.on ? 'on' : 'off'}`),
    onSettled: refresh,
  });
  const remove = useMutation({ mutationFn: (id: number) => del(`${base}/${id}`), onSettled: refresh });
  return (
    <section aria-labelledby="project-actions">
      <Title order={2} size="h4" id="project-actions" mb="xs">
        Actions
      </Title>
      <Card withBorder>
        <Stack>
          <NewActionSet projectId={projectId} onCreated={refresh} />
          <MutationError error={toggle.error ?? remove.error} />
          {sets.isPending ? (
            <Loading />
          ) : sets.isError ? (
            <ErrorState error={sets.error} />
          ) : sets.data.actions.length === 0 ? (
            <Empty>No action sets.</Empty>
          ) : (
            <Table aria-label="Action sets">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>When</Table.Th>
                  <Table.Th>Does</Table.Th>
                  <Table.Th>Enabled</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {sets.data.actions.map((s) => (
                  <Table.Tr key={s.id}>
                    <Table.Td>{s.name}</Table.Td>
                    <Table.Td>
                      {Object.entries(s.match.payload)
                        .map(([path, m]) => `${path} ${m.operator} ${m.values?.join(', ') ?? m.value ?? ''}`)
                        .join('; ') || 'every signal'}
                    </Table.Td>
                    <Table.Td>
                      {s.actions
                        .map(
                          (a) =>
                            `${a.action} ${a.executionParams.featureName ?? `tag ${a.executionParams.tag}`} in ${a.executionParams.environment}`,
                        )
                        .join('; ')}
                    </Table.Td>
                    <Table.Td>
                      <Switch
                        aria-label={`Action set ${s.name} enabled`}
                        checked={s.enabled}
                        onChange={(e) => toggle.mutate({ id: s.id, on: e.currentTarget.checked })}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button
                          size="xs"
                          variant="light"
                          onClick={() => setRunsOf(runsOf === s.id ? null : s.id)}
                        >
                          Runs of {s.name}
                        </Button>
                        <Button size="xs" variant="outline" color="red.9" onClick={() => remove.mutate(s.id)}>
                          Delete {s.name}
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
          {runsOf !== null && <Runs path={`${base}/${runsOf}/events`} />}
        </Stack>
      </Card>
    </section>
  );
}

function NewActionSet({ projectId, onCreated }: { projectId: string; onCreated: () => void }) {
  const base = `api/admin/projects/${enc(projectId)}/actions`;
  const endpoints = useSignalEndpoints();
  const accounts = useQuery({
    queryKey: ['service-accounts'],
    queryFn: () =>
      get<{ serviceAccounts: { id: number; name?: string; username?: string }[] }>(
        'api/admin/service-account',
      ),
  });
  const config = useQuery({
    queryKey: [...setsKey(projectId), 'config'],
    queryFn: () => get<Config>(`${base}/config`),
  });
  const [name, setName] = useState('');
  const [source, setSource] = useState<string | null>(null);
  const [actor, setActor] = useState<string | null>(null);
  const [path, setPath] = useState('');
  const [operator, setOperator] = useState('IN');
  const [value, setValue] = useState('');
  const [kind, setKind] = useState<string | null>('TOGGLE_FEATURE_OFF');
  const [environment, setEnvironment] = useState<string | null>(null);
  const [flag, setFlag] = useState<string | null>(null);
  const [tag, setTag] = useState<string | null>(null);
  const needs = (p: string) => Boolean(config.data?.[kind ?? '']?.parameters.some((x) => x.name === p));
  const create = useMutation({
    mutationFn: () => {
      const filter = MULTI.includes(operator)
        ? {
            operator,
            values: value
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean),
          }
        : { operator, value: value.trim() };
      return post(base, {
        name: name.trim(),
        actorId: Number(actor),
        match: {
          source: 'signal-endpoint',
          sourceId: Number(source),
          payload: path.trim() ? { [path.trim()]: filter } : {},
        },
        actions: [
          {
            action: kind,
            sortOrder: 1,
            executionParams: {
              project: projectId,
              environment,
              ...(needs('featureName') && { featureName: flag }),
              ...(needs('tag') && { tag }),
            },
          },
        ],
      });
    },
    onSuccess: () => {
      setName('');
      onCreated();
    },
  });
  const parameter = (p: string) =>
    config.data?.[kind ?? '']?.parameters.find((x) => x.name === p)?.options ?? [];
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        When a signal matches, the actions run as the chosen service account, with its permissions.
      </Text>
      <Group align="end">
        <TextInput label="Action set name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <Select
          label="Signal endpoint"
          data={(endpoints.data?.signalEndpoints ?? []).map((e) => ({ value: String(e.id), label: e.name }))}
          value={source}
          onChange={setSource}
        />
        <Select
          label="Run as"
          data={(accounts.data?.serviceAccounts ?? []).map((a) => ({
            value: String(a.id),
            label: a.name ?? a.username ?? `#${a.id}`,
          }))}
          value={actor}
          onChange={setActor}
        />
      </Group>
      <Group align="end">
        <TextInput
          label="Payload field"
          placeholder="alert.severity (empty: every signal)"
          value={path}
          onChange={(e) => setPath(e.currentTarget.value)}
        />
        <Select
          label="Operator"
          data={OPERATORS}
          value={operator}
          onChange={(v) => setOperator(v ?? 'IN')}
          w={170}
        />
        <TextInput
          label={MULTI.includes(operator) ? 'Values (comma-separated)' : 'Value'}
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
        />
      </Group>
      <Group align="end">
        <Select
          label="Action"
          data={Object.entries(config.data ?? {}).map(([k, c]) => ({ value: k, label: c.label }))}
          value={kind}
          onChange={setKind}
        />
        <Select
          label="Environment"
          data={parameter('environment')}
          value={environment}
          onChange={setEnvironment}
        />
        {needs('featureName') && (
          <Select label="Flag" data={parameter('featureName')} value={flag} onChange={setFlag} searchable />
        )}
        {needs('tag') && (
          <Select label="Tag" data={parameter('tag')} value={tag} onChange={setTag} searchable />
        )}
        <Button
          disabled={
            !name.trim() ||
            !source ||
            !actor ||
            !kind ||
            !environment ||
            (needs('featureName') && !flag) ||
            (needs('tag') && !tag)
          }
          loading={create.isPending}
          onClick={() => create.mutate()}
        >
          Create action set
        </Button>
      </Group>
      <MutationError error={create.error} />
    </Stack>
  );
}

function Runs({ path }: { path: string }) {
  const runs = useQuery({
    queryKey: ['runs', path],
    queryFn: () => get<{ actionSetEvents: Run[] }>(`${path}?limit=20`),
    refetchInterval: 5000,
  });
  if (runs.isPending) return <Loading />;
  if (runs.isError) return <ErrorState error={runs.error} />;
  if (runs.data.actionSetEvents.length === 0) return <Empty>No runs yet.</Empty>;
  return (
    <Table aria-label="Runs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>When</Table.Th>
          <Table.Th>Outcome</Table.Th>
          <Table.Th>Signal</Table.Th>
          <Table.Th>Actions</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {runs.data.actionSetEvents.map((r) => (
          <Table.Tr key={r.id}>
            <Table.Td>{new Date(r.createdAt).toLocaleString()}</Table.Td>
            <Table.Td>
              <Badge color={r.state === 'success' ? ON_COLOR : 'red.9'}>{r.state}</Badge>
            </Table.Td>
            <Table.Td>
              <Code>{JSON.stringify(r.signal.payload)}</Code>
            </Table.Td>
            <Table.Td>
              {r.actionSet.actions.map((a) => (
                <Text key={a.id} size="sm">
                  {a.action} {String(a.executionParams.featureName ?? `tag ${a.executionParams.tag}`)}:{' '}
                  {a.state}
                  {a.details ? ` (${a.details})` : ''}
                </Text>
              ))}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
