import {
  Button,
  MultiSelect,
  Group as Row,
  Select,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, get, notifyDone, post, put } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { ConfirmDelete, FormDialog, NameFields } from '../dialogs';
import { useUsers } from '../queries';
import { useCan } from '../session';
import type { Role } from '../types';
import { accessKeys, personLabel, type UserGroup } from './AccessShared';

const useGroups = () =>
  useQuery({
    queryKey: accessKeys.groups,
    queryFn: async () => (await get<{ groups: UserGroup[] }>('api/admin/groups')).groups,
  });

/** Groups of users: their root role and project roles apply to every member. Admins edit them. */
export default function GroupsPage() {
  const groups = useGroups();
  const users = useUsers();
  const admin = useCan()('ADMIN');
  const [editing, setEditing] = useState<UserGroup | 'new' | null>(null);
  const [deleting, setDeleting] = useState<UserGroup | null>(null);
  const roles = users.data?.rootRoles ?? [];
  const roleName = (id: number | null) =>
    id === null ? 'None' : (roles.find((r) => r.id === id)?.name ?? `role ${id}`);
  return (
    <Stack>
      <Row justify="space-between">
        <Title order={1} size="h2">
          Groups
        </Title>
        {admin && <Button onClick={() => setEditing('new')}>New group</Button>}
      </Row>
      {groups.isPending ? (
        <Loading />
      ) : groups.isError ? (
        <ErrorState error={groups.error} />
      ) : groups.data.length === 0 ? (
        <Empty>
          No groups yet. A group gives its members roles together, in the instance or in projects.
        </Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Members</Table.Th>
              <Table.Th>Root role</Table.Th>
              <Table.Th>Projects</Table.Th>
              {admin && (
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {groups.data.map((g) => (
              <Table.Tr key={g.id}>
                <Table.Td>
                  <Text fw={600}>{g.name}</Text>
                  {g.description && (
                    <Text size="sm" c="dimmed">
                      {g.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {g.userCount === 0 ? 'none' : g.users.map((m) => personLabel(m.user)).join(', ')}
                </Table.Td>
                <Table.Td>{roleName(g.rootRole)}</Table.Td>
                <Table.Td>{g.projects.length === 0 ? 'none' : g.projects.join(', ')}</Table.Td>
                {admin && (
                  <Table.Td>
                    <Row gap="xs" wrap="nowrap">
                      <Button size="xs" variant="default" onClick={() => setEditing(g)}>
                        Edit <VisuallyHidden>{g.name}</VisuallyHidden>
                      </Button>
                      <Button size="xs" variant="outline" color="red.9" onClick={() => setDeleting(g)}>
                        Delete <VisuallyHidden>{g.name}</VisuallyHidden>
                      </Button>
                    </Row>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {editing && users.data && (
        <GroupForm
          group={editing === 'new' ? null : editing}
          people={users.data.users}
          roles={roles}
          onClose={() => setEditing(null)}
        />
      )}
      {deleting && <DeleteGroup group={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}

function GroupForm({
  group,
  people,
  roles,
  onClose,
}: {
  group: UserGroup | null;
  people: { id: number; name?: string | null; username?: string | null; email?: string | null }[];
  roles: Role[];
  onClose: () => void;
}) {
  const client = useQueryClient();
  const [name, setName] = useState(group?.name ?? '');
  const [description, setDescription] = useState(group?.description ?? '');
  const [members, setMembers] = useState<string[]>(group?.users.map((m) => String(m.user.id)) ?? []);
  const [rootRole, setRootRole] = useState<string | null>(group?.rootRole ? String(group.rootRole) : null);
  const save = useMutation({
    mutationFn: () => {
      // PUT replaces every field: the SSO mappings (not edited here) go back as they were.
      const body = {
        name: name.trim(),
        description: description.trim() || null,
        rootRole: rootRole ? Number(rootRole) : null,
        users: members.map((id) => ({ user: { id: Number(id) } })),
        mappingsSSO: group?.mappingsSSO ?? [],
      };
      return group ? put(`api/admin/groups/${group.id}`, body) : post('api/admin/groups', body);
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: accessKeys.groups });
      notifyDone(group ? `Group "${name.trim()}" saved.` : `Group "${name.trim()}" created.`);
      onClose();
    },
  });
  const title = group ? `Edit group ${group.name}` : 'New group';
  return (
    <FormDialog
      title={title}
      onClose={onClose}
      onSubmit={() => save.mutate()}
      error={save.error}
      submitLabel={group ? 'Save group' : 'Create group'}
      submitting={save.isPending}
      submitDisabled={!name.trim()}
    >
      <NameFields
        nameLabel="Group name"
        name={name}
        onName={setName}
        description={description}
        onDescription={setDescription}
      />
      <MultiSelect
        label="Members"
        placeholder={members.length === 0 ? 'Pick users' : undefined}
        searchable
        data={people.map((p) => ({ value: String(p.id), label: personLabel(p) }))}
        value={members}
        onChange={setMembers}
        nothingFoundMessage="No such user"
      />
      <Select
        label="Root role"
        description="Every member also gets this role's permissions."
        placeholder="None"
        clearable
        data={roles.map((r) => ({ value: String(r.id), label: r.name }))}
        value={rootRole}
        onChange={setRootRole}
      />
    </FormDialog>
  );
}

function DeleteGroup({ group, onClose }: { group: UserGroup; onClose: () => void }) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => del(`api/admin/groups/${group.id}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: accessKeys.groups });
      // Members may lose project roles: project pages read access afresh.
      await client.invalidateQueries({ queryKey: ['access', 'project-access'] });
      notifyDone(`Group "${group.name}" deleted.`);
      onClose();
    },
  });
  return (
    <ConfirmDelete
      title={`Delete group ${group.name}`}
      confirmLabel="Delete group"
      mutation={remove}
      onClose={onClose}
    >
      Its {group.userCount} member(s) lose the roles it gave them, in the instance and in{' '}
      {group.projects.length} project(s).
    </ConfirmDelete>
  );
}
