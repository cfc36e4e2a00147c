import { Button, Group, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, get, notifyDone, post } from '../api';
import { BANNERS_KEY, type Banner } from '../Banners';
import { Empty, ErrorState, Loading } from '../components';
import { MutationError } from '../dialogs';

const VARIANTS = ['info', 'warning', 'error', 'success'];

/** Admins' page of the instance banners: new ones, shown or hidden, deleted. */
export default function BannersAdminPage() {
  const client = useQueryClient();
  const banners = useQuery({
    queryKey: BANNERS_KEY,
    queryFn: () => get<{ banners: Banner[] }>('api/admin/banners'),
  });
  const [message, setMessage] = useState('');
  const [variant, setVariant] = useState('info');
  const [link, setLink] = useState('');
  const [linkText, setLinkText] = useState('');
  const refresh = () => client.invalidateQueries({ queryKey: BANNERS_KEY });
  const create = useMutation({
    mutationFn: () =>
      post('api/admin/banners', { message, variant, ...(link && { link, linkText: linkText || null }) }),
    onSuccess: () => {
      notifyDone('Banner created.');
      setMessage('');
      setLink('');
      setLinkText('');
    },
    onSettled: refresh,
  });
  const toggle = useMutation({
    mutationFn: (b: { id: number; on: boolean }) => post(`api/admin/banners/${b.id}/${b.on ? 'on' : 'off'}`),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => del(`api/admin/banners/${id}`),
    onSuccess: () => notifyDone('Banner deleted.'),
    onSettled: refresh,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Banners
      </Title>
      <Text size="sm" c="dimmed">
        Enabled banners show above every page for everyone signed in.
      </Text>
      <Group align="end">
        <TextInput
          label="Message"
          value={message}
          onChange={(e) => setMessage(e.currentTarget.value)}
          w={360}
        />
        <Select
          label="Variant"
          data={VARIANTS}
          value={variant}
          onChange={(v) => setVariant(v ?? 'info')}
          w={120}
        />
        <TextInput
          label="Link (optional)"
          placeholder="https://… or dialog"
          value={link}
          onChange={(e) => setLink(e.currentTarget.value)}
        />
        <TextInput label="Link text" value={linkText} onChange={(e) => setLinkText(e.currentTarget.value)} />
        <Button disabled={!message.trim()} loading={create.isPending} onClick={() => create.mutate()}>
          Create banner
        </Button>
      </Group>
      <MutationError error={create.error} />
      {banners.isPending ? (
        <Loading />
      ) : banners.isError ? (
        <ErrorState error={banners.error} />
      ) : banners.data.banners.length === 0 ? (
        <Empty>No banners.</Empty>
      ) : (
        <Table aria-label="Banners">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Message</Table.Th>
              <Table.Th>Variant</Table.Th>
              <Table.Th>Shown</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {banners.data.banners.map((b) => (
              <Table.Tr key={b.id}>
                <Table.Td>{b.message}</Table.Td>
                <Table.Td>{b.variant}</Table.Td>
                <Table.Td>
                  <Switch
                    aria-label={`Show banner ${b.id}`}
                    checked={b.enabled}
                    onChange={(e) => toggle.mutate({ id: b.id, on: e.currentTarget.checked })}
                  />
                </Table.Td>
                <Table.Td>
                  <Button size="xs" variant="outline" color="red.9" onClick={() => remove.mutate(b.id)}>
                    Delete banner {b.id}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
