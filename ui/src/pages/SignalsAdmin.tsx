import { Alert, Button, Code, Group, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, get, notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { shellQuote } from '../curl';
import { MutationError } from '../dialogs';

export interface SignalEndpoint {
  id: number;
  name: string;
  description: string | null;
  enabled: boolean;
  tokens: { id: number; name: string }[];
}

interface EndpointSignal {
  id: number;
  createdAt: string;
  tokenName: string | null;
  payload: unknown;
}

export const SIGNAL_ENDPOINTS_KEY = ['signal-endpoints'] as const;

export const useSignalEndpoints = () =>
  useQuery({
    queryKey: SIGNAL_ENDPOINTS_KEY,
    queryFn: () => get<{ signalEndpoints: SignalEndpoint[] }>('api/admin/signal-endpoints'),
  });

/** Where external systems send signals: endpoints, their tokens (secret shown once) and what arrived. */
export default function SignalsAdminPage() {
  const client = useQueryClient();
  const endpoints = useSignalEndpoints();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<{ endpoint: string; token: string } | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: SIGNAL_ENDPOINTS_KEY });
  const create = useMutation({
    mutationFn: () =>
      post('api/admin/signal-endpoints', { name: name.trim(), description: description || null }),
    onSuccess: () => {
      notifyDone('Signal endpoint created.');
      setName('');
      setDescription('');
    },
    onSettled: refresh,
  });
  const toggle = useMutation({
    mutationFn: (e: { id: number; on: boolean }) =>
      post(`api/admin/signal-endpoints/${e.id}/${e.on ? 'on' : 'off'}`),
    onSettled: refresh,
  });
  const addToken = useMutation({
    mutationFn: (e: SignalEndpoint) =>
      post<{ token: string }>(`api/admin/signal-endpoints/${e.id}/tokens`, {
        name: `token ${e.tokens.length + 1}`,
      }),
    onSuccess: (created, e) => setSecret({ endpoint: e.name, token: created.token }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => del(`api/admin/signal-endpoints/${id}`),
    onSuccess: () => notifyDone('Signal endpoint deleted.'),
    onSettled: refresh,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Signals
      </Title>
      <Text size="sm" c="dimmed">
        External systems (monitoring, alerting) post JSON to a signal endpoint with one of its tokens; a
        project’s action sets can act on what arrives.
      </Text>
      <Group align="end">
        <TextInput
          label="Endpoint name"
          description="Letters, digits, . _ ~ -"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <TextInput
          label="Description"
          value={description}
          onChange={(e) => setDescription(e.currentTarget.value)}
        />
        <Button disabled={!name.trim()} loading={create.isPending} onClick={() => create.mutate()}>
          Create endpoint
        </Button>
      </Group>
      <MutationError error={create.error ?? remove.error ?? addToken.error} />
      {secret && (
        <Alert
          title={`New token for ${secret.endpoint}`}
          withCloseButton
          closeButtonLabel="Hide the new token"
          onClose={() => setSecret(null)}
        >
          <Text size="sm">Copy it now: it is not shown again.</Text>
          <Code block aria-label="New token">
            {secret.token}
          </Code>
          <Code block mt="xs">
            {[
              'curl -X POST',
              shellQuote(new URL(`api/signal-endpoint/${secret.endpoint}`, document.baseURI).href),
              '-H',
              shellQuote(`Authorization: Bearer ${secret.token}`),
              '-H',
              shellQuote('Content-Type: application/json'),
              '--data',
              shellQuote('{"alert": "example"}'),
            ].join(' ')}
          </Code>
        </Alert>
      )}
      {endpoints.isPending ? (
        <Loading />
      ) : endpoints.isError ? (
        <ErrorState error={endpoints.error} />
      ) : endpoints.data.signalEndpoints.length === 0 ? (
        <Empty>No signal endpoints.</Empty>
      ) : (
        <Table aria-label="Signal endpoints">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>URL path</Table.Th>
              <Table.Th>Tokens</Table.Th>
              <Table.Th>Enabled</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {endpoints.data.signalEndpoints.map((e) => (
              <EndpointRow
                key={e.id}
                endpoint={e}
                open={open === e.id}
                onOpen={() => setOpen(open === e.id ? null : e.id)}
                onToggle={(on) => toggle.mutate({ id: e.id, on })}
                onToken={() => addToken.mutate(e)}
                onDelete={() => remove.mutate(e.id)}
              />
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function EndpointRow(props: {
  endpoint: SignalEndpoint;
  open: boolean;
  onOpen: () => void;
  onToggle: (on: boolean) => void;
  onToken: () => void;
  onDelete: () => void;
}) {
  const e = props.endpoint;
  return (
    <>
      <Table.Tr>
        <Table.Td>
          {e.name}
          {e.description && (
            <Text size="xs" c="dimmed">
              {e.description}
            </Text>
          )}
        </Table.Td>
        <Table.Td>
          <Code>/api/signal-endpoint/{e.name}</Code>
        </Table.Td>
        <Table.Td>{e.tokens.map((t) => t.name).join(', ') || 'none'}</Table.Td>
        <Table.Td>
          <Switch
            aria-label={`Endpoint ${e.name} enabled`}
            checked={e.enabled}
            onChange={(ev) => props.onToggle(ev.currentTarget.checked)}
          />
        </Table.Td>
        <Table.Td>
          <Group gap="xs" wrap="nowrap">
            <Button size="xs" variant="light" onClick={props.onToken}>
              New token for {e.name}
            </Button>
            <Button size="xs" variant="light" onClick={props.onOpen}>
              {props.open ? 'Hide signals' : `Signals of ${e.name}`}
            </Button>
            <Button size="xs" variant="outline" color="red.9" onClick={props.onDelete}>
              Delete {e.name}
            </Button>
          </Group>
        </Table.Td>
      </Table.Tr>
      {props.open && (
        <Table.Tr>
          <Table.Td colSpan={5}>
            <Signals endpointId={e.id} />
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

function Signals({ endpointId }: { endpointId: number }) {
  const signals = useQuery({
    queryKey: [...SIGNAL_ENDPOINTS_KEY, endpointId, 'signals'],
    queryFn: () =>
      get<{ signalEndpointSignals: EndpointSignal[] }>(
        `api/admin/signal-endpoints/${endpointId}/signals?limit=20`,
      ),
    refetchInterval: 5000,
  });
  if (signals.isPending) return <Loading />;
  if (signals.isError) return <ErrorState error={signals.error} />;
  if (signals.data.signalEndpointSignals.length === 0) return <Empty>No signals yet.</Empty>;
  return (
    <Table aria-label="Signals">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Arrived</Table.Th>
          <Table.Th>Token</Table.Th>
          <Table.Th>Payload</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {signals.data.signalEndpointSignals.map((s) => (
          <Table.Tr key={s.id}>
            <Table.Td>{new Date(s.createdAt).toLocaleString()}</Table.Td>
            <Table.Td>{s.tokenName}</Table.Td>
            <Table.Td>
              <Code>{JSON.stringify(s.payload)}</Code>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
