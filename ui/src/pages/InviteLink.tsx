import {
  Alert,
  Button,
  Checkbox,
  Code,
  CopyButton,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { enc, get, notifyDone, post, put } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { FormDialog } from '../dialogs';
import { useCan } from '../session';
import { accessKeys } from './AccessShared';

interface InviteToken {
  /** The full secret; for a link made before the service kept secrets, its first 6 characters and `…`. */
  secret: string;
  /** `<PUBLIC_URL>/new-user?invite=<secret>`; null for a link made before the service kept secrets. */
  url: string | null;
  name: string;
  enabled: boolean;
  expiresAt: string;
  createdAt: string;
  users: unknown[] | null;
}

const DAY = 86_400_000;
const EXPIRY = [
  { value: '1', label: '1 day' },
  { value: '7', label: '1 week' },
  { value: '14', label: '2 weeks' },
  { value: '31', label: '1 month (the longest)' },
];

/**
 * The secret and link of a token: the service answers them, except for a link made before it kept
 * secrets (only a prefix, `url` null); then the PUT needs a pasted link.
 */
const linkOf = (t: InviteToken) => (t.url === null ? undefined : { secret: t.secret, url: t.url });

/** What the table shows of a secret: its first 6 characters, as the service shows old links. */
const prefixOf = (secret: string) => (secret.endsWith('…') ? secret : `${secret.slice(0, 6)}…`);

const useInviteLinks = () =>
  useQuery({
    queryKey: accessKeys.inviteLinks,
    queryFn: async () => (await get<{ tokens: InviteToken[] }>('api/admin/invite-link/tokens')).tokens,
  });

const status = (t: InviteToken) =>
  t.enabled ? 'Active' : new Date(t.expiresAt).getTime() <= Date.now() ? 'Expired' : 'Disabled';

/** The invite link: people who have it sign up themselves (as Viewers). Admins only. */
export default function InviteLinkPage() {
  const tokens = useInviteLinks();
  const admin = useCan()('ADMIN');
  const [creating, setCreating] = useState(false);
  const [changing, setChanging] = useState<InviteToken | null>(null);
  const current = tokens.data?.find((t) => t.enabled);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Invite link
        </Title>
        {admin && <Button onClick={() => setCreating(true)}>New invite link</Button>}
      </Group>
      <Text>Whoever opens the invite link can create their own account, with the Viewer role.</Text>
      {tokens.isPending ? (
        <Loading />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} />
      ) : (
        <>
          <section aria-labelledby="current-invite-link">
            <Title order={2} size="h4" id="current-invite-link" mb="xs">
              Current invite link
            </Title>
            {current ? (
              <CurrentLink token={current} />
            ) : (
              <Empty>No active invite link. Create one to let people sign up.</Empty>
            )}
          </section>
          {tokens.data.length > 0 && (
            <section aria-labelledby="all-invite-links">
              <Title order={2} size="h4" id="all-invite-links" mb="xs">
                All invite links
              </Title>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Secret starts with</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Expires</Table.Th>
                    <Table.Th>Signed up</Table.Th>
                    {admin && (
                      <Table.Th>
                        <VisuallyHidden>Actions</VisuallyHidden>
                      </Table.Th>
                    )}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {tokens.data.map((t) => (
                    <Table.Tr key={`${t.secret}-${t.createdAt}`}>
                      <Table.Td>{t.name}</Table.Td>
                      <Table.Td>
                        <Code>{prefixOf(t.secret)}</Code>
                      </Table.Td>
                      <Table.Td>{status(t)}</Table.Td>
                      <Table.Td>{new Date(t.expiresAt).toLocaleString()}</Table.Td>
                      <Table.Td>{t.users?.length ?? 0}</Table.Td>
                      {admin && (
                        <Table.Td>
                          <Button size="xs" variant="default" onClick={() => setChanging(t)}>
                            Change <VisuallyHidden>{t.name}</VisuallyHidden>
                          </Button>
                        </Table.Td>
                      )}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </section>
          )}
        </>
      )}
      {creating && <CreateLink onClose={() => setCreating(false)} />}
      {changing && <ChangeLink token={changing} onClose={() => setChanging(null)} />}
    </Stack>
  );
}

function CurrentLink({ token }: { token: InviteToken }) {
  const made = linkOf(token);
  const expires = new Date(token.expiresAt).toLocaleString();
  if (!made)
    return (
      <Text>
        {token.name} (secret starts with <Code>{token.secret}</Code>) works until {expires}. It was made
        before the service kept links, so its full URL cannot be shown; make a new link if nobody has it.
      </Text>
    );
  return (
    <Stack gap="xs">
      <Text>
        {token.name} works until {expires}.
      </Text>
      {/* Focusable and wrapped: a long URL must be reachable and readable by keyboard (axe). */}
      <Code
        block
        tabIndex={0}
        aria-label="Invite link URL"
        style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}
      >
        {made.url}
      </Code>
      <Group>
        <CopyButton value={made.url}>
          {({ copied, copy }) => (
            <Button variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy link'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

function CreateLink({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('Invite link');
  const [days, setDays] = useState('7');
  const create = useMutation({
    mutationFn: () =>
      post<InviteToken>('api/admin/invite-link/tokens', {
        name: name.trim(),
        expiresAt: new Date(Date.now() + Number(days) * DAY).toISOString(),
      }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: accessKeys.inviteLinks });
      notifyDone('Invite link created.');
      onClose();
    },
  });
  return (
    <FormDialog
      title="New invite link"
      onClose={onClose}
      onSubmit={() => create.mutate()}
      error={create.error}
      submitLabel="Create invite link"
      submitting={create.isPending}
      submitDisabled={!name.trim()}
    >
      <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
      <Select
        label="Expires in"
        data={EXPIRY}
        value={days}
        allowDeselect={false}
        onChange={(v) => v && setDays(v)}
      />
    </FormDialog>
  );
}

/** The secret from a pasted link (`…?invite=<secret>`) or the secret itself. */
function secretOf(text: string): string {
  const trimmed = text.trim();
  try {
    return new URL(trimmed).searchParams.get('invite') ?? trimmed;
  } catch {
    return trimmed;
  }
}

/** New expiry and on/off; the PUT takes the full secret (pasted for a link the service cannot show). */
function ChangeLink({ token, onClose }: { token: InviteToken; onClose: () => void }) {
  const client = useQueryClient();
  const made = linkOf(token);
  const [pasted, setPasted] = useState('');
  const [days, setDays] = useState<string | null>(null);
  const [enabled, setEnabled] = useState(token.enabled);
  const change = useMutation({
    mutationFn: () =>
      put<InviteToken>(`api/admin/invite-link/tokens/${enc(made?.secret ?? secretOf(pasted))}`, {
        enabled,
        ...(days && { expiresAt: new Date(Date.now() + Number(days) * DAY).toISOString() }),
      }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: accessKeys.inviteLinks });
      notifyDone(`Invite link ${token.name} changed.`);
      onClose();
    },
  });
  return (
    <FormDialog
      title={`Change ${token.name}`}
      onClose={onClose}
      onSubmit={() => change.mutate()}
      error={change.error}
      submitLabel="Save invite link"
      submitting={change.isPending}
      submitDisabled={!made && !pasted.trim()}
    >
      {!made && (
        <>
          <Alert color="blue" title="The link is needed">
            This link was made before the service kept links, so paste the link or its secret (it starts with{' '}
            {token.secret}).
          </Alert>
          <TextInput
            label="Invite link or secret"
            required
            value={pasted}
            onChange={(e) => setPasted(e.currentTarget.value)}
          />
        </>
      )}
      <Select
        label="New expiry"
        description={`Now: ${new Date(token.expiresAt).toLocaleString()}.`}
        placeholder="Keep the current expiry"
        clearable
        data={EXPIRY.map((e) => ({ ...e, label: `${e.label.replace(' (the longest)', '')} from now` }))}
        value={days}
        onChange={setDays}
      />
      <Checkbox
        label="Link enabled"
        description="Unticked, nobody can sign up with it any more."
        checked={enabled}
        onChange={(e) => setEnabled(e.currentTarget.checked)}
      />
    </FormDialog>
  );
}
