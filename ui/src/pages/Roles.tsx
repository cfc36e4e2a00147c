import {
  Button,
  Checkbox,
  Fieldset,
  Group,
  List,
  Modal,
  MultiSelect,
  Radio,
  SimpleGrid,
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
import { keys, useEnvironments } from '../queries';
import { useCan } from '../session';
import { type PermissionInfo, usePermissionCatalog } from './AccessPermissions';
import {
  accessKeys,
  isCustomRole,
  ROLE_TYPE_LABEL,
  type RoleDetail,
  type RolePermission,
  type RoleSummary,
} from './AccessShared';

type CustomType = 'root-custom' | 'custom';

const useRoles = () =>
  useQuery({
    queryKey: accessKeys.roles,
    queryFn: async () => (await get<{ roles: RoleSummary[] }>('api/admin/roles')).roles,
  });

const useRole = (id: number) =>
  useQuery({
    queryKey: accessKeys.role(id),
    queryFn: () => get<RoleDetail>(`api/admin/roles/${id}`),
  });

/** Roles: predefined ones to look at, custom root and project roles to create, edit and delete. */
export default function RolesPage() {
  const roles = useRoles();
  const admin = useCan()('ADMIN');
  const [creating, setCreating] = useState(false);
  const [viewing, setViewing] = useState<RoleSummary | null>(null);
  const [editing, setEditing] = useState<RoleSummary | null>(null);
  const [deleting, setDeleting] = useState<RoleSummary | null>(null);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Roles
        </Title>
        {admin && <Button onClick={() => setCreating(true)}>New role</Button>}
      </Group>
      {roles.isPending ? (
        <Loading />
      ) : roles.isError ? (
        <ErrorState error={roles.error} />
      ) : roles.data.length === 0 ? (
        <Empty>No roles.</Empty>
      ) : (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {roles.data.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <Text fw={600}>{r.name}</Text>
                  {r.description && (
                    <Text size="sm" c="dimmed">
                      {r.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{ROLE_TYPE_LABEL[r.type] ?? r.type}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap" justify="end">
                    <Button size="xs" variant="default" onClick={() => setViewing(r)}>
                      Permissions <VisuallyHidden>of {r.name}</VisuallyHidden>
                    </Button>
                    {admin && isCustomRole(r) && (
                      <>
                        <Button size="xs" variant="default" onClick={() => setEditing(r)}>
                          Edit <VisuallyHidden>{r.name}</VisuallyHidden>
                        </Button>
                        <Button size="xs" variant="outline" color="red.9" onClick={() => setDeleting(r)}>
                          Delete <VisuallyHidden>{r.name}</VisuallyHidden>
                        </Button>
                      </>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {creating && <RoleForm entry={null} onClose={() => setCreating(false)} />}
      {viewing && <ViewRole entry={viewing} onClose={() => setViewing(null)} />}
      {editing && <EditRole entry={editing} onClose={() => setEditing(null)} />}
      {deleting && <DeleteRole entry={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}

const describe = (p: RolePermission, byName: Map<string, PermissionInfo>) => {
  const label = byName.get(p.name)?.label ?? p.name;
  const where = [
    p.environment && (p.environment === '*' ? 'all environments' : `environment ${p.environment}`),
    p.project && `project ${p.project}`,
  ].filter(Boolean);
  return where.length > 0 ? `${label} (${where.join(', ')})` : label;
};

/** A role's permissions, read-only (the only view of predefined roles). */
function ViewRole({ entry: role, onClose }: { entry: RoleSummary; onClose: () => void }) {
  const detail = useRole(role.id);
  const { byName } = usePermissionCatalog();
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Permissions of ${role.name}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      {detail.isPending ? (
        <Loading />
      ) : detail.isError ? (
        <ErrorState error={detail.error} />
      ) : detail.data.permissions.length === 0 ? (
        <Empty>This role grants no permissions.</Empty>
      ) : (
        <List spacing={4}>
          {detail.data.permissions.map((p) => (
            <List.Item key={`${p.name}-${p.environment ?? ''}-${p.project ?? ''}`}>
              {p.name === 'ADMIN' ? 'Everything (ADMIN)' : describe(p, byName)}
            </List.Item>
          ))}
        </List>
      )}
    </Modal>
  );
}

function EditRole({ entry: role, onClose }: { entry: RoleSummary; onClose: () => void }) {
  const detail = useRole(role.id);
  if (detail.isPending || detail.isError)
    return (
      <Modal
        opened
        onClose={onClose}
        title={`Edit role ${role.name}`}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {detail.isPending ? <Loading /> : <ErrorState error={detail.error} />}
      </Modal>
    );
  return <RoleForm entry={detail.data} onClose={onClose} />;
}

/** Chosen permissions: name → environments (empty for permissions without one). */
type Chosen = Record<string, string[]>;

function chosenOf(permissions: RolePermission[]): Chosen {
  const chosen: Chosen = {};
  for (const p of permissions) {
    const list = chosen[p.name] ?? [];
    if (p.environment) list.push(p.environment);
    chosen[p.name] = list;
  }
  return chosen;
}

function RoleForm({ entry: role, onClose }: { entry: RoleDetail | null; onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState(role?.name ?? '');
  const [description, setDescription] = useState(role?.description ?? '');
  const [type, setType] = useState<CustomType>((role?.type as CustomType | undefined) ?? 'custom');
  const [chosen, setChosen] = useState<Chosen>(() => chosenOf(role?.permissions ?? []));
  const { byName } = usePermissionCatalog();
  const save = useMutation({
    mutationFn: () => {
      const permissions = Object.entries(chosen)
        // A project role holds no root permission (the server refuses them).
        .filter(([permission]) => type === 'root-custom' || byName.get(permission)?.scope !== 'root')
        .flatMap(([permission, environments]) =>
          byName.get(permission)?.scope === 'environment'
            ? (environments.length > 0 ? environments : ['*']).map((environment) => ({
                name: permission,
                environment,
              }))
            : [{ name: permission }],
        );
      const body = { name: name.trim(), description: description.trim() || null, type, permissions };
      return role ? put(`api/admin/roles/${role.id}`, body) : post('api/admin/roles', body);
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: accessKeys.roles });
      // Root roles are offered on the users page; project roles on project settings.
      await client.invalidateQueries({ queryKey: keys.users });
      await client.invalidateQueries({ queryKey: ['access', 'project-access'] });
      notifyDone(role ? `Role "${name.trim()}" saved.` : `Role "${name.trim()}" created.`);
      onClose();
    },
  });
  return (
    <FormDialog
      title={role ? `Edit role ${role.name}` : 'New role'}
      size="xl"
      onClose={onClose}
      onSubmit={() => save.mutate()}
      error={save.error}
      submitLabel={role ? 'Save role' : 'Create role'}
      submitting={save.isPending}
      submitDisabled={!name.trim()}
    >
      <NameFields
        nameLabel="Role name"
        name={name}
        onName={setName}
        description={description}
        onDescription={setDescription}
      />
      {role ? (
        <Text size="sm">Type: {ROLE_TYPE_LABEL[role.type] ?? role.type} (a role's type cannot change)</Text>
      ) : (
        <Radio.Group label="Type" value={type} onChange={(v) => setType(v as CustomType)}>
          <Stack gap="xs" mt={4}>
            <Radio
              value="root-custom"
              label="Root role"
              description="Given to users and groups as their root role; applies in every project."
            />
            <Radio
              value="custom"
              label="Project role"
              description="Given to users and groups in one project; holds project permissions only."
            />
          </Stack>
        </Radio.Group>
      )}
      <PermissionPicker type={type} chosen={chosen} onChange={setChosen} />
    </FormDialog>
  );
}

/** Checkboxes by category; environment-limited ones also take the environments they apply in. */
function PermissionPicker({
  type,
  chosen,
  onChange,
}: {
  type: CustomType;
  chosen: Chosen;
  onChange: (chosen: Chosen) => void;
}) {
  const environments = useEnvironments();
  const envOptions = [
    { value: '*', label: 'All environments' },
    ...(environments.data ?? []).map((e) => ({ value: e.name, label: e.name })),
  ];
  const catalog = usePermissionCatalog();
  const { byName } = catalog;
  const categories = catalog.categories
    .map((c) => ({
      ...c,
      permissions: c.permissions.filter((p) => type === 'root-custom' || p.scope !== 'root'),
    }))
    .filter((c) => c.permissions.length > 0);
  const toggle = (permission: string, on: boolean) => {
    const next = { ...chosen };
    if (on) next[permission] = byName.get(permission)?.scope === 'environment' ? ['*'] : [];
    else delete next[permission];
    onChange(next);
  };
  if (catalog.isLoading) return <Loading />;
  if (catalog.error) return <ErrorState error={catalog.error} />;
  return (
    <Stack gap="sm">
      <Text fw={600} size="sm">
        Permissions
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {categories.map((c) => (
          <Fieldset key={c.category} legend={c.category} variant="filled">
            <Stack gap="xs">
              {c.permissions.map((p) => (
                <Stack key={p.name} gap={4}>
                  <Checkbox
                    label={p.label}
                    description={p.name}
                    checked={p.name in chosen}
                    onChange={(e) => toggle(p.name, e.currentTarget.checked)}
                  />
                  {p.scope === 'environment' && p.name in chosen && (
                    <MultiSelect
                      size="xs"
                      searchable
                      ml="lg"
                      label={`Environments for ${p.label.toLowerCase()}`}
                      data={envOptions}
                      value={chosen[p.name] ?? []}
                      onChange={(v) =>
                        onChange({ ...chosen, [p.name]: environmentsPicked(chosen[p.name] ?? [], v) })
                      }
                      placeholder={(chosen[p.name] ?? []).length === 0 ? 'All environments' : undefined}
                    />
                  )}
                </Stack>
              ))}
            </Stack>
          </Fieldset>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

/** "All environments" and single ones exclude each other: the one just picked wins. */
function environmentsPicked(before: string[], after: string[]): string[] {
  const added = after.filter((e) => !before.includes(e));
  if (added.includes('*')) return ['*'];
  return added.length > 0 ? after.filter((e) => e !== '*') : after;
}

function DeleteRole({ entry: role, onClose }: { entry: RoleSummary; onClose: () => void }) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => del(`api/admin/roles/${role.id}`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: accessKeys.roles });
      await client.invalidateQueries({ queryKey: keys.users });
      notifyDone(`Role "${role.name}" deleted.`);
      onClose();
    },
  });
  return (
    <ConfirmDelete
      title={`Delete role ${role.name}`}
      confirmLabel="Delete role"
      mutation={remove}
      onClose={onClose}
    >
      Delete the role {role.name}? A role that users, groups or invite links still hold cannot be deleted: the
      service says who holds it.
    </ConfirmDelete>
  );
}
