import {
  Alert,
  Button,
  Group,
  Modal,
  type ModalProps,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError, errorTitle } from './api';

/** The failed write's message in the dialog itself (the toast disappears; this stays). */
export function MutationError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <Alert color="red" title={error instanceof ApiError ? errorTitle(error) : 'Failed'} role="alert">
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

/**
 * A dialog around a form: the fields, then the write's error (when `error` is given), then Cancel
 * and the submit button. Enter in a field submits.
 */
export function FormDialog({
  title,
  size,
  onClose,
  onSubmit,
  error,
  submitLabel,
  submitting,
  submitDisabled,
  submitColor,
  children,
}: {
  title: string;
  size?: ModalProps['size'];
  onClose: () => void;
  onSubmit: () => void;
  error?: unknown;
  submitLabel: string;
  submitting: boolean;
  submitDisabled?: boolean;
  submitColor?: string;
  children: ReactNode;
}) {
  return (
    <Modal opened onClose={onClose} size={size} title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <Stack>
          {children}
          <MutationError error={error} />
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color={submitColor} loading={submitting} disabled={submitDisabled}>
              {submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** A create/edit form's first fields: the required name (focused when the dialog opens) and a description. */
export function NameFields({
  nameLabel,
  name,
  onName,
  description,
  onDescription,
}: {
  nameLabel: string;
  name: string;
  onName: (name: string) => void;
  description: string;
  onDescription: (description: string) => void;
}) {
  return (
    <>
      <TextInput
        label={nameLabel}
        required
        data-autofocus
        value={name}
        onChange={(e) => onName(e.currentTarget.value)}
      />
      <Textarea
        label="Description"
        value={description}
        onChange={(e) => onDescription(e.currentTarget.value)}
      />
    </>
  );
}
