import { Button, Card, Group, Modal, Radio, Select, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { enc, get, notifyDone, post } from '../api';
import { ErrorState } from '../components';
import { keys } from '../queries';
import { useCan } from '../session';
import type { Flag } from '../types';

/** `GET …/features/:name/lifecycle`: the stages entered, oldest first; the last is the current one. */
export interface LifecycleEntry {
  stage: string;
  /** For completed: kept or discarded. */
  status?: string | null;
  enteredStageAt: string;
}

export const STAGES = [
  { stage: 'initial', label: 'Initial' },
  { stage: 'pre-live', label: 'Pre-live' },
  { stage: 'live', label: 'Live' },
  { stage: 'completed', label: 'Completed' },
  { stage: 'archived', label: 'Archived' },
] as const;

export const lifecycleKey = (project: string, flag: string) => ['lifecycle', project, flag] as const;

type StepState = 'done' | 'current' | 'skipped' | 'ahead';

/** Each stage with its state and the entry that entered it (a later entry of a stage wins). */
export function steps(entries: LifecycleEntry[]) {
  const current = entries.at(-1)?.stage;
  const currentIndex = STAGES.findIndex((s) => s.stage === current);
  return STAGES.map((s, index) => {
    const entry = [...entries].reverse().find((e) => e.stage === s.stage);
    let state: StepState = 'ahead';
    if (s.stage === current) state = 'current';
    else if (index < currentIndex) state = entry ? 'done' : 'skipped';
    return { ...s, entry, state };
  });
}

const MARK: Record<StepState, string> = { done: '✓', current: '●', skipped: '–', ahead: '○' };
const STATE_TEXT: Record<StepState, string> = {
  done: 'done',
  current: 'current stage',
  skipped: 'skipped',
  ahead: 'not reached',
};

/**
 * The flag's lifecycle as a row of stages (state in words and a mark, never colour alone), the date
 * each was entered, and Mark completed / Undo completed for users who may update the flag.
 */
export function LifecycleStepper({ projectId, flag }: { projectId: string; flag: Flag }) {
  const can = useCan();
  const client = useQueryClient();
  const headingId = useId();
  const [completing, setCompleting] = useState(false);
  const base = `api/admin/projects/${enc(projectId)}/features/${enc(flag.name)}/lifecycle`;
  const lifecycle = useQuery({
    queryKey: lifecycleKey(projectId, flag.name),
    queryFn: () => get<LifecycleEntry[]>(base),
  });
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: lifecycleKey(projectId, flag.name) }),
      client.invalidateQueries({ queryKey: keys.flag(projectId, flag.name) }),
      client.invalidateQueries({ queryKey: keys.flags(projectId) }),
    ]);
  const uncomplete = useMutation({
    mutationFn: () => post(`${base}/uncomplete`),
    onSuccess: () => notifyDone(`${flag.name} is no longer completed.`),
    onSettled: refresh,
  });
  if (lifecycle.isPending) return null;
  if (lifecycle.isError) return <ErrorState error={lifecycle.error} />;
  const entries = lifecycle.data;
  const current = entries.at(-1);
  const mayUpdate = can('UPDATE_FEATURE', projectId);
  return (
    <Card withBorder component="section" aria-labelledby={headingId} padding="sm">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id={headingId}>
          Lifecycle
        </Title>
        {mayUpdate && current?.stage === 'completed' && (
          <Button
            size="xs"
            variant="default"
            loading={uncomplete.isPending}
            onClick={() => uncomplete.mutate()}
          >
            Undo completed
          </Button>
        )}
        {mayUpdate && current && current.stage !== 'completed' && current.stage !== 'archived' && (
          <Button size="xs" variant="default" onClick={() => setCompleting(true)}>
            Mark completed
          </Button>
        )}
      </Group>
      <ol style={{ display: 'flex', flexWrap: 'wrap', gap: 8, listStyle: 'none', padding: 0, margin: 0 }}>
        {steps(entries).map((s) => (
          <li
            key={s.stage}
            aria-current={s.state === 'current' ? 'step' : undefined}
            style={{
              flex: '1 1 120px',
              borderTop: `4px ${s.state === 'ahead' || s.state === 'skipped' ? 'dotted' : 'solid'} ${
                s.state === 'ahead' || s.state === 'skipped'
                  ? 'var(--mantine-color-gray-6)'
                  : 'var(--mantine-primary-color-filled)'
              }`,
              paddingTop: 6,
            }}
          >
            <Text fw={s.state === 'current' ? 700 : 500}>
              <span aria-hidden="true">{MARK[s.state]} </span>
              {s.label}
            </Text>
            <Text size="sm">
              {STATE_TEXT[s.state]}
              {s.stage === 'completed' && s.entry?.status ? ` · ${s.entry.status}` : ''}
            </Text>
            {s.entry && (
              <Text size="sm" c="dimmed">
                entered{' '}
                <time dateTime={s.entry.enteredStageAt}>
                  {new Date(s.entry.enteredStageAt).toLocaleString(undefined, {
                    dateStyle: 'medium',
                    timeStyle: 'short',
                  })}
                </time>
              </Text>
            )}
          </li>
        ))}
      </ol>
      {completing && (
        <CompleteDialog
          flag={flag}
          onClose={() => setCompleting(false)}
          complete={async (body) => {
            try {
              await post(`${base}/complete`, body);
            } finally {
              await refresh();
            }
          }}
        />
      )}
    </Card>
  );
}

/** The variant names the flag has anywhere (environment and strategy variants), for "kept". */
function variantNames(flag: Flag): string[] {
  const names = flag.environments.flatMap((e) => [
    ...(e.variants ?? []).map((v) => v.name),
    ...e.strategies.flatMap((s) => (s.variants ?? []).map((v) => v.name)),
  ]);
  return [...new Set(names)].sort();
}

function CompleteDialog(props: {
  flag: Flag;
  onClose: () => void;
  complete: (body: { status: 'kept' | 'discarded'; statusValue?: string }) => Promise<void>;
}) {
  const { flag, onClose, complete } = props;
  const [status, setStatus] = useState<'kept' | 'discarded'>('kept');
  const [variant, setVariant] = useState<string | null>(null);
  const variants = variantNames(flag);
  const submit = useMutation({
    mutationFn: () => complete({ status, ...(status === 'kept' && variant && { statusValue: variant }) }),
    onSuccess: () => {
      notifyDone(`${flag.name} is completed (${status}).`);
      onClose();
    },
  });
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Mark ${flag.name} completed`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit.mutate();
        }}
      >
        <Stack>
          <Text size="sm">
            Completed means the feature behind the flag is done: the flag can be cleaned up from the code and
            then archived.
          </Text>
          <Radio.Group
            label="What happened to the feature?"
            value={status}
            onChange={(v) => setStatus(v === 'discarded' ? 'discarded' : 'kept')}
          >
            <Stack gap="xs" mt="xs">
              <Radio value="kept" label="Kept" description="The feature stays, for everyone." />
              <Radio value="discarded" label="Discarded" description="The feature is removed." />
            </Stack>
          </Radio.Group>
          {status === 'kept' && variants.length > 0 && (
            <Select
              label="Variant kept (optional)"
              data={variants}
              value={variant}
              onChange={setVariant}
              clearable
            />
          )}
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={submit.isPending}>
              Mark completed
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
