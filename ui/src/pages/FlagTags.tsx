import { Badge, Button, CloseButton, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, enc, get, notifyDone, post } from '../api';
import { keys } from '../queries';
import { useCan } from '../session';

export interface Tag {
  type: string;
  value: string;
}

/** The flag's tags: badges, with add and remove for those who may UPDATE_FEATURE. */
export function FlagTags(props: { projectId: string; flagName: string; tags: Tag[] }) {
  const { projectId, flagName, tags } = props;
  const can = useCan();
  const client = useQueryClient();
  const [adding, setAdding] = useState(false);
  const editable = can('UPDATE_FEATURE', projectId);
  const refresh = () => client.invalidateQueries({ queryKey: keys.flag(projectId, flagName) });
  const remove = useMutation({
    mutationFn: (t: Tag) => del(`api/admin/features/${enc(flagName)}/tags/${enc(t.type)}/${enc(t.value)}`),
    onSuccess: (_d, t) => notifyDone(`Tag ${t.type}:${t.value} removed.`),
    onSettled: refresh,
  });
  return (
    <Group gap="xs">
      <Text size="sm">
        <Text span fw={600}>
          Tags:{' '}
        </Text>
        {tags.length === 0 && 'none'}
      </Text>
      {tags.map((t) => (
        <Group key={`${t.type}:${t.value}`} gap={0} wrap="nowrap">
          <Badge variant="light" tt="none">
            {t.type}:{t.value}
          </Badge>
          {editable && (
            <CloseButton
              size="sm"
              aria-label={`Remove tag ${t.type}:${t.value}`}
              disabled={remove.isPending}
              onClick={() => remove.mutate(t)}
            />
          )}
        </Group>
      ))}
      {editable && (
        <Button size="compact-xs" variant="default" onClick={() => setAdding(true)}>
          Add tag
        </Button>
      )}
      {adding && <AddTag flagName={flagName} onClose={() => setAdding(false)} onAdded={refresh} />}
    </Group>
  );
}

function AddTag(props: { flagName: string; onClose: () => void; onAdded: () => Promise<unknown> }) {
  const { flagName, onClose, onAdded } = props;
  const types = useQuery({
    queryKey: ['tag-types'],
    queryFn: async () => (await get<{ tagTypes: { name: string }[] }>('api/admin/tag-types')).tagTypes,
    staleTime: 60_000,
  });
  const [type, setType] = useState<string | null>('simple');
  const [value, setValue] = useState('');
  const trimmed = value.trim();
  const add = useMutation({
    mutationFn: () => post(`api/admin/features/${enc(flagName)}/tags`, { type, value: trimmed }),
    onSuccess: async () => {
      notifyDone(`Tag ${type}:${trimmed} added.`);
      await onAdded();
      onClose();
    },
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Add a tag to ${flagName}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <Stack>
          <Select
            label="Tag type"
            data={(types.data ?? []).map((t) => t.name)}
            value={type}
            onChange={setType}
            allowDeselect={false}
            required
          />
          <TextInput
            label="Tag value"
            description="2 to 50 characters."
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            required
            data-autofocus
          />
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending} disabled={!type || trimmed.length < 2}>
              Add tag
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
