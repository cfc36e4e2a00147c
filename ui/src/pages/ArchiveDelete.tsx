import { Code, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { del, enc, notifyDone } from '../api';
import { FormDialog } from '../dialogs';
import { type ArchivedFlag, useRefreshAfter } from './Archive';

/** Deleting for good cannot be undone: the button works once the flag's name is typed. */
export function DeleteArchivedFlag({ flag, onClose }: { flag: ArchivedFlag; onClose: () => void }) {
  const refresh = useRefreshAfter();
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => del(`api/admin/archive/${enc(flag.name)}`),
    onSuccess: async () => {
      await refresh(flag);
      notifyDone(`Flag "${flag.name}" deleted for good.`);
      onClose();
    },
  });
  const matches = typed === flag.name;
  return (
    <FormDialog
      title={`Delete flag ${flag.name} for good?`}
      onClose={onClose}
      onSubmit={() => {
        if (matches) remove.mutate();
      }}
      submitLabel="Delete for good"
      submitting={remove.isPending}
      submitDisabled={!matches}
      submitColor="red.9"
    >
      <Text size="sm">
        The flag and its configuration are removed and cannot be revived; its events stay in the event log.
        SDKs that still ask for it get it as unknown.
      </Text>
      <TextInput
        label="Type the flag name to confirm"
        description={
          <>
            Type <Code>{flag.name}</Code>
          </>
        }
        autoComplete="off"
        spellCheck={false}
        data-autofocus
        value={typed}
        onChange={(e) => setTyped(e.currentTarget.value)}
      />
    </FormDialog>
  );
}
