import {
  Alert,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, enc, get, notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { FormDialog } from '../dialogs';
import { keys, useApiTokens, useEnvironments, useProjects } from '../queries';
import { useCan } from '../session';
import type { ApiToken } from '../types';

// Worded as the SDK people use, the support question Unleash kept getting (token types).
const TYPES = [
  { value: 'client', label: 'Backend SDK (client)' },
  { value: 'frontend', label: 'Frontend SDK' },
  { value: 'admin', label: 'Admin API' },
];

const same = (a: ApiToken, b: ApiToken) => a.secret === b.secret && a.createdAt === b.createdAt;

/** API tokens: listed without secrets; the secret of a new token is shown once, with a copy button. */
export default function ApiTokensPage() {
  const tokens = useApiTokens();
  const can = useCan();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<ApiToken | null>(null);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          API tokens
        </Title>
        {can('CREATE_API_TOKEN') && <Button onClick={() => setCreating(true)}>New API token</Button>}
      </Group>
      {tokens.isPending ? (
        <Loading />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} />
      ) : tokens.data.length === 0 ? (
        <Empty>No API tokens yet. SDKs need one to fetch flags.</Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Projects</Table.Th>
              <Table.Th>Environment</Table.Th>
              <Table.Th>Secret starts with</Table.Th>
              <Table.Th>Created</Table.Th>
              {can('DELETE_API_TOKEN') && (
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tokens.data.map((t) => (
              <Table.Tr key={`${t.secret}-${t.createdAt}`}>
                <Table.Td>{t.tokenName}</Table.Td>
                <Table.Td>{t.type}</Table.Td>
                <Table.Td>{t.projects.join(', ')}</Table.Td>
                <Table.Td>{t.environment}</Table.Td>
                <Table.Td>
                  <Code>{t.secret}</Code>
                </Table.Td>
                <Table.Td>{new Date(t.createdAt).toLocaleString()}</Table.Td>
                {can('DELETE_API_TOKEN') && (
                  <Table.Td>
                    <Button size="xs" variant="outline" color="red.9" onClick={() => setDeleting(t)}>
                      Delete {t.tokenName}
                    </Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {creating && <CreateToken onClose={() => setCreating(false)} />}
      {deleting && <DeleteToken token={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}

function CreateToken({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const projects = useProjects();
  const environments = useEnvironments();
  const [tokenName, setTokenName] = useState('');
  const [type, setType] = useState('client');
  const [project, setProject] = useState('*');
  const [environment, setEnvironment] = useState('development');
  const create = useMutation({
    mutationFn: () =>
      post<ApiToken>('api/admin/api-tokens', {
        tokenName,
        type,
        projects: [project],
        ...(type !== 'admin' && { environment }),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.apiTokens }),
  });
  if (create.data) return <SecretOnce token={create.data} onClose={onClose} />;
  return (
    <FormDialog
      title="New API token"
      onClose={onClose}
      onSubmit={() => create.mutate()}
      submitLabel="Create token"
      submitting={create.isPending}
    >
      <TextInput
        label="Token name"
        required
        value={tokenName}
        onChange={(e) => setTokenName(e.currentTarget.value)}
      />
      <Select
        label="Type"
        data={TYPES}
        value={type}
        allowDeselect={false}
        onChange={(v) => setType(v ?? 'client')}
      />
      <Select
        label="Project"
        data={[
          { value: '*', label: 'All projects' },
          ...(projects.data ?? []).map((p) => ({ value: p.id, label: p.name })),
        ]}
        value={project}
        allowDeselect={false}
        onChange={(v) => setProject(v ?? '*')}
      />
      {type !== 'admin' && (
        <Select
          label="Environment"
          data={(environments.data ?? []).map((e) => e.name)}
          value={environment}
          allowDeselect={false}
          onChange={(v) => setEnvironment(v ?? 'development')}
        />
      )}
    </FormDialog>
  );
}

/** The full secret, this once: the service keeps only its hash. */
function SecretOnce({ token, onClose }: { token: ApiToken; onClose: () => void }) {
  return (
    <Modal opened onClose={onClose} title="Token created" closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <Alert color="orange.9" title="Copy the secret now">
          It is shown only this once; the service keeps no copy it can show again.
        </Alert>
        <Text size="sm">Secret of {token.tokenName}:</Text>
        {/* Focusable and wrapped: a long secret must be reachable and readable by keyboard (axe). */}
        <Code
          block
          tabIndex={0}
          aria-label={`Secret of ${token.tokenName}`}
          style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
        >
          {token.secret}
        </Code>
        <Group justify="end">
          <CopyButton value={token.secret}>
            {({ copied, copy }) => (
              <Button variant="default" onClick={copy}>
                {copied ? 'Copied' : 'Copy secret'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={onClose}>Done</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The API deletes by full secret (lists hold only its start), so the user pastes it. */
function DeleteToken({ token, onClose }: { token: ApiToken; onClose: () => void }) {
  const client = useQueryClient();
  const [secret, setSecret] = useState('');
  const remove = useMutation({
    mutationFn: async () => {
      await del(`api/admin/api-tokens/${enc(secret.trim())}`);
      // An unknown secret is a 200 that changes nothing: check that the token is gone.
      const { tokens } = await get<{ tokens: ApiToken[] }>('api/admin/api-tokens');
      client.setQueryData(keys.apiTokens, tokens);
      if (tokens.some((t) => same(t, token)))
        throw new Error(`That is not the secret of ${token.tokenName}.`);
    },
    onSuccess: () => {
      notifyDone(`Token ${token.tokenName} deleted.`);
      onClose();
    },
  });
  return (
    <FormDialog
      title={`Delete ${token.tokenName}`}
      onClose={onClose}
      onSubmit={() => remove.mutate()}
      submitLabel="Delete token"
      submitting={remove.isPending}
      submitColor="red.9"
    >
      <TextInput
        label="Token secret"
        description={`Paste the secret, which starts with ${token.secret}. SDKs using it stop working.`}
        required
        value={secret}
        onChange={(e) => setSecret(e.currentTarget.value)}
      />
    </FormDialog>
  );
}
