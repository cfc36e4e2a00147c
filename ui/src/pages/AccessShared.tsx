import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../api';

/** Shapes of the identity-and-access answers (see openapi.json: Groups, Roles, Projects). */
export interface Person {
  id: number;
  name?: string | null;
  username?: string | null;
  email?: string | null;
}
export interface UserGroup {
  id: number;
  name: string;
  description?: string | null;
  mappingsSSO: string[];
  rootRole: number | null;
  users: { user: Person }[];
  projects: string[];
  userCount: number;
}
export interface RoleSummary {
  id: number;
  name: string;
  /** `root`/`project`: predefined; `root-custom`/`custom`: made by an admin. */
  type: string;
  description: string;
}
export interface RolePermission {
  name: string;
  environment?: string;
  project?: string;
}
export interface RoleDetail extends RoleSummary {
  permissions: RolePermission[];
}

/** Query keys of these pages (mutations invalidate them). */
export const accessKeys = {
  groups: ['access', 'groups'] as const,
  roles: ['access', 'roles'] as const,
  role: (id: number) => ['access', 'roles', id] as const,
  inviteLinks: ['access', 'invite-links'] as const,
  people: ['access', 'people'] as const,
  project: (id: string) => ['access', 'project', id] as const,
  projectAccess: (id: string) => ['access', 'project-access', id] as const,
};

export const personLabel = (u: Person) => u.name || u.username || u.email || `user ${u.id}`;

export const isCustomRole = (r: { type: string }) => r.type === 'root-custom' || r.type === 'custom';

export const ROLE_TYPE_LABEL: Record<string, string> = {
  root: 'Predefined root role',
  project: 'Predefined project role',
  'root-custom': 'Custom root role',
  custom: 'Custom project role',
};

/** The failed write's message in the dialog itself (the toast disappears; this stays). */
export function MutationError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Alert color="red" title={error instanceof ApiError ? error.name : 'Failed'} role="alert">
      {error instanceof Error ? error.message : String(error)}
    </Alert>
  );
}

/** A delete that asks first; the server's refusal (e.g. a role in use) is shown in the dialog. */
export function ConfirmDelete({
  title,
  children,
  confirmLabel,
  mutation,
  onClose,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  mutation: UseMutationResult<unknown, Error, void>;
  onClose: () => void;
}) {
  return (
    <Modal opened onClose={onClose} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        <Text>{children}</Text>
        <MutationError error={mutation.error} />
        <Group justify="end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button color="red.9" loading={mutation.isPending} onClick={() => mutation.mutate()}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
