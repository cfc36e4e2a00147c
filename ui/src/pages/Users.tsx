import { Button, Group, Modal, PasswordInput, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { notifyDone, post, put } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { keys, useUsers } from '../queries';
import { useCan } from '../session';
import type { Role, User } from '../types';

/** Users and their root role; admins create users and change roles. */
export default function UsersPage() {
  const users = useUsers();
  const can = useCan();
  const admin = can('ADMIN');
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Users
        </Title>
        {admin && <Button onClick={() => setCreating(true)}>New user</Button>}
      </Group>
      {users.isPending ? (
        <Loading />
      ) : users.isError ? (
        <ErrorState error={users.error} />
      ) : users.data.users.length === 0 ? (
        <Empty>No users.</Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Username or email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Last login</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {users.data.users.map((u) => (
              <Table.Tr key={u.id}>
                <Table.Td>{u.name ?? ''}</Table.Td>
                <Table.Td>{u.username ?? u.email ?? ''}</Table.Td>
                <Table.Td>
                  {admin ? (
                    <RoleSelect user={u} roles={users.data.rootRoles} />
                  ) : (
                    (users.data.rootRoles.find((r) => r.id === u.rootRole)?.name ?? u.rootRole)
                  )}
                </Table.Td>
                <Table.Td>{u.seenAt ? new Date(u.seenAt).toLocaleString() : 'never'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {creating && users.data && (
        <CreateUser roles={users.data.rootRoles} onClose={() => setCreating(false)} />
      )}
    </Stack>
  );
}

const label = (u: User) => u.name || u.username || u.email || `user ${u.id}`;

function RoleSelect({ user, roles }: { user: User; roles: Role[] }) {
  const client = useQueryClient();
  const change = useMutation({
    mutationFn: (rootRole: number) => put(`api/admin/user-admin/${user.id}`, { rootRole }),
    onSuccess: () => notifyDone(`${label(user)} has a new role.`),
    onSettled: () => client.invalidateQueries({ queryKey: keys.users }),
  });
  return (
    <Select
      aria-label={`Role of ${label(user)}`}
      data={roles.map((r) => ({ value: String(r.id), label: r.name }))}
      value={String(change.isPending ? change.variables : user.rootRole)}
      allowDeselect={false}
      onChange={(v) => v && change.mutate(Number(v))}
      w={160}
    />
  );
}

function CreateUser({ roles, onClose }: { roles: Role[]; onClose: () => void }) {
  const client = useQueryClient();
  const [username, setUsername] = useState('');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [rootRole, setRootRole] = useState(
    String(roles.find((r) => r.name === 'Viewer')?.id ?? roles[0]?.id),
  );
  const create = useMutation({
    mutationFn: () =>
      post('api/admin/user-admin', {
        ...(username && { username }),
        ...(name && { name }),
        ...(email && { email }),
        ...(password && { password }),
        rootRole: Number(rootRole),
      }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.users });
      notifyDone(`User ${username || email} created.`);
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title="New user" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <TextInput label="Username" value={username} onChange={(e) => setUsername(e.currentTarget.value)} />
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <TextInput
            label="Email"
            type="email"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            description="Optional: without one the user needs an invite link."
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Select
            label="Role"
            data={roles.map((r) => ({ value: String(r.id), label: r.name }))}
            value={rootRole}
            allowDeselect={false}
            onChange={(v) => v && setRootRole(v)}
          />
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!username && !email}>
              Create user
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
