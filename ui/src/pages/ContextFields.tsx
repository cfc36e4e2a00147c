import {
  Button,
  Checkbox,
  Group,
  Modal,
  Stack,
  Table,
  TagsInput,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { keys, useContextFields } from '../queries';
import { useCan } from '../session';

/** Context fields: what constraints can test; legal values become pickers in the constraint editor. */
export default function ContextFieldsPage() {
  const fields = useContextFields();
  const can = useCan();
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Context fields
        </Title>
        {can('CREATE_CONTEXT_FIELD') && <Button onClick={() => setCreating(true)}>New context field</Button>}
      </Group>
      {fields.isPending ? (
        <Loading />
      ) : fields.isError ? (
        <ErrorState error={fields.error} />
      ) : fields.data.length === 0 ? (
        <Empty>No context fields.</Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Legal values</Table.Th>
              <Table.Th>Stickiness</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {fields.data.map((f) => (
              <Table.Tr key={f.name}>
                <Table.Td>
                  <Text fw={600}>{f.name}</Text>
                  {f.description && (
                    <Text size="sm" c="dimmed">
                      {f.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{(f.legalValues ?? []).map((v) => v.value).join(', ') || 'any value'}</Table.Td>
                <Table.Td>{f.stickiness ? 'yes' : 'no'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {creating && <CreateContextField onClose={() => setCreating(false)} />}
    </Stack>
  );
}

function CreateContextField({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [legalValues, setLegalValues] = useState<string[]>([]);
  const [stickiness, setStickiness] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      post('api/admin/context', {
        name,
        ...(description && { description }),
        stickiness,
        legalValues: legalValues.map((value) => ({ value })),
      }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.context });
      notifyDone(`Context field ${name} created.`);
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title="New context field" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Textarea
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <TagsInput
            label="Legal values"
            description="Enter or comma after each; leave empty to allow any value"
            value={legalValues}
            onChange={setLegalValues}
          />
          <Checkbox
            label="Usable for stickiness"
            checked={stickiness}
            onChange={(e) => setStickiness(e.currentTarget.checked)}
          />
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create context field
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
