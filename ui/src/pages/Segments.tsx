import { Button, Group, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { ConstraintsEditor, cleanConstraint, describeConstraint } from '../constraints';
import { NameFields } from '../dialogs';
import { keys, useSegments } from '../queries';
import { useCan } from '../session';
import type { Constraint } from '../types';

export default function SegmentsPage() {
  const segments = useSegments();
  const can = useCan();
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Segments
        </Title>
        {can('CREATE_SEGMENT') && <Button onClick={() => setCreating(true)}>New segment</Button>}
      </Group>
      {segments.isPending ? (
        <Loading />
      ) : segments.isError ? (
        <ErrorState error={segments.error} />
      ) : segments.data.length === 0 ? (
        <Empty>No segments yet. A segment is a reusable list of constraints.</Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Constraints</Table.Th>
              <Table.Th>Used in flags</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {segments.data.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td>
                  <Text fw={600}>{s.name}</Text>
                  {s.description && (
                    <Text size="sm" c="dimmed">
                      {s.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {s.constraints.map((c, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: constraints have no identity
                    <Text size="sm" key={i}>
                      {describeConstraint(c)}
                    </Text>
                  ))}
                </Table.Td>
                <Table.Td>{s.usedInFeatures ?? 0}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {creating && <CreateSegment onClose={() => setCreating(false)} />}
    </Stack>
  );
}

function CreateSegment({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [constraints, setConstraints] = useState<Constraint[]>([]);
  const create = useMutation({
    mutationFn: () =>
      post('api/admin/segments', {
        name,
        ...(description && { description }),
        constraints: constraints.map(cleanConstraint),
      }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.segments });
      notifyDone(`Segment "${name}" created.`);
      onClose();
    },
  });
  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title="New segment"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <NameFields
            nameLabel="Segment name"
            name={name}
            onName={setName}
            description={description}
            onDescription={setDescription}
          />
          <ConstraintsEditor value={constraints} onChange={setConstraints} />
          <Group justify="end">
            <Button type="submit" loading={create.isPending}>
              Create segment
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
