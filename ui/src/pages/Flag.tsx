import {
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Card,
  Fieldset,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { del, enc, getTagged, notifyDone, notifyError, post, put, type Tagged } from '../api';
import { Empty, ErrorState, Loading, OFF_COLOR, ON_COLOR } from '../components';
import { ConstraintsEditor, cleanConstraint, describeConstraint } from '../constraints';
import { keys, useFlag, useSegments } from '../queries';
import { useCan } from '../session';
import type { Constraint, FlagEnvironment, Strategy, Variant } from '../types';
import { VariantsEditor, variantsValid, WeightBar } from '../variants';
import { variantsPayload } from '../weights';
import { EnvironmentVariants, TagsAndDependencies } from './FlagVariants';

/** A flag: its metadata, and per environment a switch and the ordered strategies. */
export default function FlagPage() {
  const { projectId, flagName } = useParams() as { projectId: string; flagName: string };
  const flag = useFlag(projectId, flagName);
  if (flag.isPending) return <Loading />;
  if (flag.isError) return <ErrorState error={flag.error} />;
  const f = flag.data;
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to="/projects">
          Projects
        </Anchor>
        <Anchor component={Link} to={`/projects/${enc(projectId)}`}>
          {projectId}
        </Anchor>
        <Text>{f.name}</Text>
      </Breadcrumbs>
      <Group>
        <Title order={1} size="h2">
          {f.name}
        </Title>
        <Badge variant="light">{f.type}</Badge>
        {f.stale && <Badge color="orange.9">stale</Badge>}
        {f.lifecycle && <Badge variant="outline">{f.lifecycle.stage}</Badge>}
      </Group>
      <Text>
        {f.description || (
          <Text span c="dimmed">
            No description.
          </Text>
        )}
      </Text>
      <Text size="sm" c="dimmed">
        Created {new Date(f.createdAt).toLocaleString()} · impression data {f.impressionData ? 'on' : 'off'}
      </Text>
      <TagsAndDependencies tags={f.tags ?? []} dependencies={f.dependencies ?? []} />
      {f.environments.map((env) => (
        <EnvironmentCard key={env.name} projectId={projectId} flagName={f.name} env={env} />
      ))}
    </Stack>
  );
}

function EnvironmentCard(props: { projectId: string; flagName: string; env: FlagEnvironment }) {
  const { projectId, flagName, env } = props;
  const can = useCan();
  const client = useQueryClient();
  const segments = useSegments();
  // The strategy being edited, as read when its editor opened, with its ETag.
  const [editing, setEditing] = useState<Tagged<Strategy> | 'new' | null>(null);
  const base = `api/admin/projects/${enc(projectId)}/features/${enc(flagName)}/environments/${enc(env.name)}`;
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: keys.flag(projectId, flagName) }),
      client.invalidateQueries({ queryKey: keys.flags(projectId) }),
    ]);
  const toggle = useMutation({
    mutationFn: (on: boolean) => post(`${base}/${on ? 'on' : 'off'}`),
    onSuccess: (_d, on) => notifyDone(`${flagName} is ${on ? 'on' : 'off'} in ${env.name}.`),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) => del(`${base}/strategies/${enc(id)}`),
    onSuccess: () => notifyDone('Strategy deleted.'),
    onSettled: refresh,
  });
  const segmentName = (id: number) => segments.data?.find((s) => s.id === id)?.name ?? `#${id}`;
  const strategies = [...env.strategies].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0));
  return (
    <Card withBorder component="section" aria-label={`Environment ${env.name}`}>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {env.name}
        </Title>
        {can('UPDATE_FEATURE_ENVIRONMENT', projectId, env.name) ? (
          <Switch
            aria-label={`${flagName} in ${env.name}`}
            label={toggle.isPending ? 'Saving…' : env.enabled ? 'On' : 'Off'}
            checked={toggle.isPending ? toggle.variables : env.enabled}
            onChange={(e) => toggle.mutate(e.currentTarget.checked)}
          />
        ) : (
          <Badge color={env.enabled ? ON_COLOR : OFF_COLOR}>{env.enabled ? 'On' : 'Off'}</Badge>
        )}
      </Group>
      {strategies.length === 0 ? (
        <Empty>No strategies: when on, the flag is on for everyone (a default strategy is added).</Empty>
      ) : (
        <Stack gap="xs">
          {strategies.map((s, index) => (
            <Card key={s.id} withBorder padding="sm" aria-label={`Strategy ${index + 1} in ${env.name}`}>
              <Group justify="space-between" align="start">
                <Stack gap={2}>
                  <Text fw={600}>
                    {index + 1}. {s.title || s.name}
                    {s.disabled ? ' (disabled)' : ''}
                  </Text>
                  {s.name === 'flexibleRollout' && (
                    <Text size="sm">Rollout {s.parameters?.rollout ?? 100}%</Text>
                  )}
                  {s.constraints.map((c, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: constraints have no identity
                    <Text size="sm" key={i}>
                      {describeConstraint(c)}
                    </Text>
                  ))}
                  {(s.segments ?? []).length > 0 && (
                    <Text size="sm">Segments: {(s.segments ?? []).map(segmentName).join(', ')}</Text>
                  )}
                  {(s.variants ?? []).length > 0 && (
                    <WeightBar variants={s.variants ?? []} label={`Variants of strategy ${index + 1}`} />
                  )}
                </Stack>
                <Group gap="xs">
                  {can('UPDATE_FEATURE_STRATEGY', projectId, env.name) && (
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() =>
                        void getTagged<Strategy>(`${base}/strategies/${enc(s.id)}`).then(
                          setEditing,
                          notifyError,
                        )
                      }
                    >
                      Edit strategy {index + 1}
                    </Button>
                  )}
                  {can('DELETE_FEATURE_STRATEGY', projectId, env.name) && (
                    <Button size="xs" variant="outline" color="red.9" onClick={() => remove.mutate(s.id)}>
                      Delete strategy {index + 1}
                    </Button>
                  )}
                </Group>
              </Group>
            </Card>
          ))}
        </Stack>
      )}
      {can('CREATE_FEATURE_STRATEGY', projectId, env.name) && (
        <Group mt="sm">
          <Button size="xs" onClick={() => setEditing('new')}>
            Add strategy in {env.name}
          </Button>
        </Group>
      )}
      <EnvironmentVariants
        projectId={projectId}
        flagName={flagName}
        env={env}
        base={base}
        refresh={refresh}
      />
      {editing && (
        <StrategyEditor
          flagName={flagName}
          env={env.name}
          strategy={editing === 'new' ? undefined : editing.body}
          onClose={() => setEditing(null)}
          save={async (body, id) => {
            try {
              // Refused (412) when someone changed the strategy since its editor opened.
              if (id && editing !== 'new') await put(`${base}/strategies/${enc(id)}`, body, editing.etag);
              else await post(`${base}/strategies`, body);
            } finally {
              await refresh();
            }
          }}
        />
      )}
    </Card>
  );
}

/** Adds or edits a gradual rollout: percentage, constraints and segments. */
function StrategyEditor(props: {
  flagName: string;
  env: string;
  strategy?: Strategy;
  onClose: () => void;
  save: (body: unknown, id?: string) => Promise<void>;
}) {
  const { flagName, env, strategy, onClose, save } = props;
  const segments = useSegments();
  const [title, setTitle] = useState(strategy?.title ?? '');
  const [rollout, setRollout] = useState<number>(Number(strategy?.parameters?.rollout ?? 100));
  const [constraints, setConstraints] = useState<Constraint[]>(strategy?.constraints ?? []);
  const [segmentIds, setSegmentIds] = useState<string[]>((strategy?.segments ?? []).map(String));
  const [variants, setVariants] = useState<Variant[]>(strategy?.variants ?? []);
  const [variantStickiness, setVariantStickiness] = useState(
    strategy?.variants?.[0]?.stickiness ?? 'default',
  );
  const submit = useMutation({
    mutationFn: () =>
      save(
        {
          name: 'flexibleRollout',
          ...(title && { title }),
          parameters: {
            rollout: String(rollout),
            stickiness: strategy?.parameters?.stickiness ?? 'default',
            groupId: strategy?.parameters?.groupId ?? flagName,
          },
          constraints: constraints.map(cleanConstraint),
          segments: segmentIds.map(Number),
          variants: variantsPayload(variants, variantStickiness),
        },
        strategy?.id,
      ),
    onSuccess: () => {
      notifyDone(strategy ? 'Strategy saved.' : `Strategy added in ${env}.`);
      onClose();
    },
  });
  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title={strategy ? `Edit strategy in ${env}` : `Add a gradual rollout in ${env}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Title (optional)"
            value={title}
            onChange={(e) => setTitle(e.currentTarget.value)}
          />
          <NumberInput
            label="Rollout %"
            min={0}
            max={100}
            clampBehavior="strict"
            value={rollout}
            onChange={(v) => setRollout(Number(v) || 0)}
            w={160}
          />
          <ConstraintsEditor value={constraints} onChange={setConstraints} />
          <MultiSelect
            label="Segments"
            placeholder={segments.data?.length ? 'Pick segments' : 'No segments yet'}
            data={(segments.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))}
            value={segmentIds}
            onChange={setSegmentIds}
            searchable
          />
          <Fieldset legend="Strategy variants" p="xs">
            <VariantsEditor
              value={variants}
              onChange={setVariants}
              stickiness={variantStickiness}
              onStickinessChange={setVariantStickiness}
            />
          </Fieldset>
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={submit.isPending} disabled={!variantsValid(variants)}>
              Save strategy
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
