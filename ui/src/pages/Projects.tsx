import { Anchor, Button, Group, Modal, Stack, Table, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { keys, useProjects } from '../queries';
import { useCan } from '../session';
import type { Project } from '../types';

export default function ProjectsPage() {
  const projects = useProjects();
  const can = useCan();
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Projects
        </Title>
        {can('CREATE_PROJECT') && <Button onClick={() => setCreating(true)}>New project</Button>}
      </Group>
      {projects.isPending ? (
        <Loading />
      ) : projects.isError ? (
        <ErrorState error={projects.error} />
      ) : projects.data.length === 0 ? (
        <Empty>No projects yet.</Empty>
      ) : (
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Id</Table.Th>
              <Table.Th>Flags</Table.Th>
              <Table.Th>Members</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {projects.data.map((p) => (
              <Table.Tr key={p.id}>
                <Table.Td>
                  <Anchor component={Link} to={`/projects/${encodeURIComponent(p.id)}`}>
                    {p.name}
                  </Anchor>
                </Table.Td>
                <Table.Td>{p.id}</Table.Td>
                <Table.Td>{p.featureCount ?? 0}</Table.Td>
                <Table.Td>{p.memberCount ?? 0}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <CreateProject opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}

function CreateProject({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () =>
      post<Project>('api/admin/projects', { id, name: name || id, ...(description && { description }) }),
    onSuccess: async (project) => {
      await client.invalidateQueries({ queryKey: keys.projects });
      notifyDone(`Project "${project.name}" created.`);
      onClose();
      navigate(`/projects/${encodeURIComponent(project.id)}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="New project" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Project id"
            description="Letters, digits, - and _; used in URLs and API tokens."
            required
            data-autofocus
            value={id}
            onChange={(e) => setId(e.currentTarget.value)}
          />
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Textarea
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <Button type="submit" loading={create.isPending}>
            Create project
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}
