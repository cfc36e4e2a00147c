import { Button, Group, Modal, Stack, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { getTagged, notifyDone, notifyError, put, type Tagged } from '../api';
import { useNeedsChangeRequest, useProposeChange } from '../changeRequests';
import { Empty } from '../components';
import { useCan } from '../session';
import type { FlagEnvironment, Variant } from '../types';
import { VariantsEditor, variantsValid, WeightBar } from '../variants';
import { variantsPayload } from '../weights';

/** The environment's variants: the weight bar, and an editor saved with one PUT of the whole list. */
export function EnvironmentVariants(props: {
  projectId: string;
  flagName: string;
  env: FlagEnvironment;
  base: string;
  refresh: () => Promise<unknown>;
}) {
  const { projectId, flagName, env, base, refresh } = props;
  const can = useCan();
  // Where change requests are required, the new list goes into the caller's draft instead.
  const viaDraft = useNeedsChangeRequest(projectId)(env.name);
  const propose = useProposeChange(projectId);
  // What the editor starts from: the variants read when it opens, with their ETag.
  const [editing, setEditing] = useState<Tagged<Variant[]> | null>(null);
  const variants = env.variants ?? [];
  const open = () =>
    getTagged<{ variants: Variant[] }>(`${base}/variants`).then(
      ({ body, etag }) => setEditing({ body: body.variants, etag }),
      notifyError,
    );
  return (
    <Stack gap="xs" mt="md">
      <Group justify="space-between">
        <Title order={3} size="h5">
          Variants in {env.name}
        </Title>
        {can('UPDATE_FEATURE_ENVIRONMENT_VARIANTS', projectId, env.name) && (
          <Button size="xs" variant="default" onClick={() => void open()}>
            Edit variants in {env.name}
          </Button>
        )}
      </Group>
      {variants.length === 0 ? (
        <Empty>No variants: the SDKs answer the "disabled" variant.</Empty>
      ) : (
        <WeightBar variants={variants} label={`Variants in ${env.name}`} />
      )}
      {editing && (
        <VariantsModal
          title={`Variants of ${flagName} in ${env.name}`}
          initial={editing.body}
          onClose={() => setEditing(null)}
          save={async (list) => {
            if (viaDraft) {
              await propose(env.name, {
                feature: flagName,
                action: 'patchVariant',
                payload: { variants: list },
              });
              await refresh();
              notifyDone(`Added to your change request for ${env.name}.`);
              return;
            }
            // Refused (412) when someone changed them since the editor opened; the page reloads.
            await put(`${base}/variants`, list, editing.etag).catch(async (error) => {
              await refresh();
              throw error;
            });
            await refresh();
            notifyDone(`Variants saved in ${env.name}.`);
          }}
        />
      )}
    </Stack>
  );
}

function VariantsModal(props: {
  title: string;
  initial: Variant[];
  onClose: () => void;
  save: (variants: Variant[]) => Promise<void>;
}) {
  const { title, initial, onClose, save } = props;
  const [value, setValue] = useState<Variant[]>(initial);
  const [stickiness, setStickiness] = useState(initial[0]?.stickiness ?? 'default');
  const submit = useMutation({
    mutationFn: () => save(variantsPayload(value, stickiness)),
    onSuccess: onClose,
  });
  return (
    <Modal opened onClose={onClose} size="xl" title={title} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit.mutate();
        }}
      >
        <Stack>
          <VariantsEditor
            value={value}
            onChange={setValue}
            stickiness={stickiness}
            onStickinessChange={setStickiness}
          />
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={submit.isPending} disabled={!variantsValid(value)}>
              Save variants
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
