import {
  Button,
  Group,
  Modal,
  MultiSelect,
  Radio,
  Select,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, enc, get, notifyDone, post, put } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { ConfirmDelete, MutationError } from '../dialogs';
import { keys } from '../queries';
import { useCan } from '../session';
import { accessKeys, type Person, personLabel } from './AccessShared';

interface Holding {
  roles: number[];
  addedAt: string;
}
interface ProjectAccess {
  roles: { id: number; name: string; description: string }[];
  users: (Person & Holding)[];
  groups: ({ id: number; name: string; userCount: number } & Holding)[];
}
/** One row: a user or a group with its roles here. */
interface Holder {
  kind: 'users' | 'groups';
  id: number;
  name: string;
  roles: number[];
}

const usePeople = () =>
  useQuery({
    queryKey: accessKeys.people,
    queryFn: () =>
      get<{ users: Person[]; groups: { id: number; name: string; userCount: number }[] }>(
        'api/admin/user-admin/access',
      ),
  });

/**
 * Who holds which role in the project. Changing users takes PROJECT_USER_ACCESS_WRITE, groups
 * PROJECT_GROUP_ACCESS_WRITE (the Owner role holds both); adding takes the first (the POST's).
 */
export function ProjectAccessSection({ projectId }: { projectId: string }) {
  const can = useCan();
  const canEdit = {
    users: can('PROJECT_USER_ACCESS_WRITE', projectId),
    groups: can('PROJECT_GROUP_ACCESS_WRITE', projectId),
  };
  const access = useQuery({
    queryKey: accessKeys.projectAccess(projectId),
    queryFn: () => get<ProjectAccess>(`api/admin/projects/${enc(projectId)}/access`),
  });
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Holder | null>(null);
  const holders: Holder[] = access.data
    ? [
        ...access.data.users.map((u) => ({
          kind: 'users' as const,
          id: u.id,
          name: personLabel(u),
          roles: u.roles,
        })),
        ...access.data.groups.map((g) => ({
          kind: 'groups' as const,
          id: g.id,
          name: g.name,
          roles: g.roles,
        })),
      ]
    : [];
  const roleNames = (ids: number[]) =>
    ids.map((id) => access.data?.roles.find((r) => r.id === id)?.name ?? `role ${id}`).join(', ');
  const anyEdit = canEdit.users || canEdit.groups;
  return (
    <section aria-labelledby="project-access">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="project-access">
          Access
        </Title>
        {canEdit.users && access.data && <Button onClick={() => setAdding(true)}>Add user or group</Button>}
      </Group>
      {access.isPending ? (
        <Loading />
      ) : access.isError ? (
        <ErrorState error={access.error} />
      ) : holders.length === 0 ? (
        <Empty>Nobody holds a role in this project yet; root roles still apply.</Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>Project roles</Table.Th>
              {anyEdit && (
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {holders.map((h) => (
              <Table.Tr key={`${h.kind}-${h.id}`}>
                <Table.Td>{h.name}</Table.Td>
                <Table.Td>{h.kind === 'users' ? 'User' : 'Group'}</Table.Td>
                <Table.Td>
                  {canEdit[h.kind] ? (
                    <RolesSelect projectId={projectId} holder={h} roles={access.data.roles} />
                  ) : (
                    roleNames(h.roles)
                  )}
                </Table.Td>
                {anyEdit && (
                  <Table.Td>
                    {canEdit[h.kind] && (
                      <Button size="xs" variant="outline" color="red.9" onClick={() => setRemoving(h)}>
                        Remove <VisuallyHidden>{h.name}</VisuallyHidden>
                      </Button>
                    )}
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {adding && access.data && (
        <AddAccess
          projectId={projectId}
          roles={access.data.roles}
          canGroups={canEdit.groups}
          onClose={() => setAdding(false)}
        />
      )}
      {removing && <RemoveAccess projectId={projectId} holder={removing} onClose={() => setRemoving(null)} />}
    </section>
  );
}

const holderPath = (projectId: string, h: { kind: string; id: number }) =>
  `api/admin/projects/${enc(projectId)}/${h.kind}/${h.id}/roles`;

/** Every change of access also changes the project's member count on the projects list. */
function useRefresh(projectId: string) {
  const client = useQueryClient();
  return async () => {
    await client.invalidateQueries({ queryKey: accessKeys.projectAccess(projectId) });
    await client.invalidateQueries({ queryKey: keys.projects });
  };
}

function RolesSelect({
  projectId,
  holder,
  roles,
}: {
  projectId: string;
  holder: Holder;
  roles: ProjectAccess['roles'];
}) {
  const refresh = useRefresh(projectId);
  const change = useMutation({
    mutationFn: (ids: number[]) => put(holderPath(projectId, holder), { roles: ids }),
    onSuccess: () => notifyDone(`${holder.name} has new roles in the project.`),
    onSettled: refresh,
  });
  const value = (change.isPending ? change.variables : holder.roles).map(String);
  return (
    <MultiSelect
      aria-label={`Project roles of ${holder.name}`}
      searchable
      data={roles.map((r) => ({ value: String(r.id), label: r.name }))}
      value={value}
      onChange={(v) => {
        // No roles = out of the project: that is the Remove button's job, with its confirmation.
        if (v.length === 0) {
          notifications.show({ message: `To take every role from ${holder.name}, use Remove.` });
          return;
        }
        change.mutate(v.map(Number));
      }}
      maw={320}
    />
  );
}

function AddAccess({
  projectId,
  roles,
  canGroups,
  onClose,
}: {
  projectId: string;
  roles: ProjectAccess['roles'];
  canGroups: boolean;
  onClose: () => void;
}) {
  const people = usePeople();
  const refresh = useRefresh(projectId);
  const [kind, setKind] = useState<'users' | 'groups'>('users');
  const [who, setWho] = useState<string | null>(null);
  const [role, setRole] = useState<string | null>(
    String(roles.find((r) => r.name === 'Member')?.id ?? roles[0]?.id ?? ''),
  );
  const options =
    kind === 'users'
      ? (people.data?.users ?? []).map((u) => ({ value: String(u.id), label: personLabel(u) }))
      : (people.data?.groups ?? []).map((g) => ({ value: String(g.id), label: g.name }));
  const add = useMutation({
    mutationFn: () =>
      post(`api/admin/projects/${enc(projectId)}/access`, {
        roles: [Number(role)],
        [kind]: [{ id: Number(who) }],
      }),
    onSuccess: async () => {
      await refresh();
      const whoName = options.find((o) => o.value === who)?.label ?? 'The new holder';
      const roleName = roles.find((r) => String(r.id) === role)?.name ?? 'the role';
      notifyDone(`${whoName} has the role ${roleName} in the project.`);
      onClose();
    },
  });
  return (
    <Modal opened onClose={onClose} title="Add user or group" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <Stack>
          {canGroups && (
            <Radio.Group
              label="Give a role to"
              value={kind}
              onChange={(v) => {
                setKind(v as 'users' | 'groups');
                setWho(null);
              }}
            >
              <Group mt={4}>
                <Radio value="users" label="A user" />
                <Radio value="groups" label="A group" />
              </Group>
            </Radio.Group>
          )}
          {people.isError ? (
            <ErrorState error={people.error} />
          ) : (
            <Select
              label={kind === 'users' ? 'User' : 'Group'}
              required
              searchable
              data={options}
              value={who}
              onChange={setWho}
              nothingFoundMessage={people.isPending ? 'Loading…' : 'Nobody found'}
            />
          )}
          <Select
            label="Project role"
            required
            data={roles.map((r) => ({ value: String(r.id), label: r.name }))}
            value={role}
            allowDeselect={false}
            onChange={setRole}
          />
          {role && (
            <Text size="sm" c="dimmed">
              {roles.find((r) => String(r.id) === role)?.description}
            </Text>
          )}
          <MutationError error={add.error} />
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending} disabled={!who || !role}>
              Add to project
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RemoveAccess({
  projectId,
  holder,
  onClose,
}: {
  projectId: string;
  holder: Holder;
  onClose: () => void;
}) {
  const refresh = useRefresh(projectId);
  const remove = useMutation({
    mutationFn: () => del(holderPath(projectId, holder)),
    onSuccess: async () => {
      await refresh();
      notifyDone(`${holder.name} removed from the project.`);
      onClose();
    },
  });
  return (
    <ConfirmDelete
      title={`Remove ${holder.name}`}
      confirmLabel="Remove from project"
      mutation={remove}
      onClose={onClose}
    >
      {holder.name} loses every role in this project
      {holder.kind === 'groups' ? ' (for all its members)' : ''}; root roles still apply.
    </ConfirmDelete>
  );
}
