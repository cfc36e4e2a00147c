import { Anchor, Badge, Breadcrumbs, Button, Card, Group, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { del, enc, getTagged, notifyDone, notifyError, post, put, type Tagged } from '../api';
import {
  changeCount,
  useChangeRequestConfig,
  useNeedsChangeRequest,
  usePendingChangeRequests,
  useProposeChange,
} from '../changeRequests';
import { Empty, ErrorState, Loading, OFF_COLOR, ON_COLOR } from '../components';
import { describeConstraint } from '../constraints';
import { keys, useFlag, useSegments } from '../queries';
import { useCan } from '../session';
import type { FlagEnvironment, Strategy } from '../types';
import { WeightBar } from '../variants';
import { FlagCompare } from './FlagCompare';
import { CopyStrategies } from './FlagCopyStrategies';
import { FlagDependencies } from './FlagDependencies';
import { FlagHistory } from './FlagHistory';
import { FlagMetrics } from './FlagMetrics';
import { FlagReleasePlan } from './FlagReleasePlan';
import { FlagTags } from './FlagTags';
import { EnvironmentVariants } from './FlagVariants';
import { LifecycleStepper } from './LifecycleStepper';
import { StrategyForm } from './StrategyForm';
import { describeParameters, typeLabel, useStrategyDefinitions } from './StrategyParameters';

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
        {f.stale && <Badge color="red.9">stale</Badge>}
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
      <PendingChanges projectId={projectId} flagName={f.name} />
      <LifecycleStepper projectId={projectId} flag={f} />
      <Stack gap={4}>
        <FlagTags projectId={projectId} flagName={f.name} tags={f.tags ?? []} />
        <FlagDependencies projectId={projectId} flagName={f.name} dependencies={f.dependencies ?? []} />
      </Stack>
      {f.environments.map((env) => (
        <EnvironmentCard
          key={env.name}
          projectId={projectId}
          flagName={f.name}
          env={env}
          environments={f.environments}
        />
      ))}
      <FlagCompare flag={f} />
      <FlagMetrics projectId={projectId} flagName={f.name} />
      <FlagHistory projectId={projectId} flagName={f.name} />
    </Stack>
  );
}

/** The caller's drafts ("Review changes") and the open change requests that change this flag. */
function PendingChanges({ projectId, flagName }: { projectId: string; flagName: string }) {
  const pending = usePendingChangeRequests(projectId);
  const mine = (pending.data ?? []).filter((r) => r.features.some((f) => f.name === flagName));
  if (mine.length === 0) return null;
  return (
    <Group gap="xs" aria-label="Pending change requests">
      {mine.map((r) => (
        <Button
          key={r.id}
          component={Link}
          size="xs"
          variant={r.state === 'Draft' ? 'filled' : 'light'}
          to={`/projects/${enc(projectId)}/change-requests/${r.id}`}
        >
          {r.state === 'Draft'
            ? `Review changes (${changeCount(r)}) in ${r.environment}`
            : `Change request #${r.id} (${r.state}) in ${r.environment}`}
        </Button>
      ))}
    </Group>
  );
}

function EnvironmentCard(props: {
  projectId: string;
  flagName: string;
  env: FlagEnvironment;
  environments: FlagEnvironment[];
}) {
  const { projectId, flagName, env } = props;
  const can = useCan();
  const client = useQueryClient();
  const segments = useSegments();
  // The strategy being edited, as read when its editor opened, with its ETag.
  const [editing, setEditing] = useState<Tagged<Strategy> | 'new' | null>(null);
  const base = `api/admin/projects/${enc(projectId)}/features/${enc(flagName)}/environments/${enc(env.name)}`;
  // Where change requests are required, edits here go into the caller's draft instead.
  const required = useChangeRequestConfig(projectId).data?.find(
    (c) => c.environment === env.name,
  )?.changeRequestEnabled;
  const viaDraft = useNeedsChangeRequest(projectId)(env.name);
  const propose = useProposeChange(projectId);
  const proposed = () => notifyDone(`Added to your change request for ${env.name}.`);
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: keys.flag(projectId, flagName) }),
      client.invalidateQueries({ queryKey: keys.flags(projectId) }),
    ]);
  const toggle = useMutation({
    mutationFn: (on: boolean) =>
      viaDraft
        ? propose(env.name, { feature: flagName, action: 'updateEnabled', payload: { enabled: on } })
        : post(`${base}/${on ? 'on' : 'off'}`),
    onSuccess: (_d, on) =>
      viaDraft ? proposed() : notifyDone(`${flagName} is ${on ? 'on' : 'off'} in ${env.name}.`),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) =>
      viaDraft
        ? propose(env.name, { feature: flagName, action: 'deleteStrategy', payload: { id } })
        : del(`${base}/strategies/${enc(id)}`),
    onSuccess: () => (viaDraft ? proposed() : notifyDone('Strategy deleted.')),
    onSettled: refresh,
  });
  const definitions = useStrategyDefinitions();
  const definitionOf = (name: string) => definitions.data?.find((d) => d.name === name);
  const typeName = (name: string) => {
    const definition = definitionOf(name);
    return definition ? typeLabel(definition) : name;
  };
  const segmentName = (id: number) => segments.data?.find((s) => s.id === id)?.name ?? `#${id}`;
  const strategies = [...env.strategies].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0));
  return (
    <Card withBorder component="section" aria-label={`Environment ${env.name}`}>
      <Group justify="space-between" mb="sm">
        <Group gap="xs">
          <Title order={2} size="h4">
            {env.name}
          </Title>
          {required && (
            <Badge variant="outline" color="orange.9">
              Change requests required
            </Badge>
          )}
        </Group>
        {can('UPDATE_FEATURE_ENVIRONMENT', projectId, env.name) ? (
          <Switch
            aria-label={`${flagName} in ${env.name}`}
            label={toggle.isPending ? 'Saving…' : env.enabled ? 'On' : 'Off'}
            checked={toggle.isPending && !viaDraft ? toggle.variables : env.enabled}
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
                    {index + 1}. {s.title || typeName(s.name)}
                    {s.disabled ? ' (disabled)' : ''}
                  </Text>
                  {s.title && <Text size="sm">Type: {typeName(s.name)}</Text>}
                  {describeParameters(s, definitionOf(s.name)).map((line) => (
                    <Text size="sm" key={line}>
                      {line}
                    </Text>
                  ))}
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
      <Group mt="sm" gap="xs">
        {can('CREATE_FEATURE_STRATEGY', projectId, env.name) && (
          <Button size="xs" onClick={() => setEditing('new')}>
            Add strategy in {env.name}
          </Button>
        )}
        <CopyStrategies
          projectId={projectId}
          flagName={flagName}
          env={env}
          environments={props.environments}
          refresh={refresh}
        />
      </Group>
      <EnvironmentVariants
        projectId={projectId}
        flagName={flagName}
        env={env}
        base={base}
        refresh={refresh}
      />
      <FlagReleasePlan projectId={projectId} flagName={flagName} env={env.name} refresh={refresh} />
      {editing && (
        <StrategyForm
          flagName={flagName}
          env={env.name}
          strategy={editing === 'new' ? undefined : editing.body}
          onClose={() => setEditing(null)}
          doneMessage={viaDraft ? `Added to your change request for ${env.name}.` : undefined}
          save={async (body, id) => {
            try {
              if (viaDraft) {
                const change =
                  id && editing !== 'new'
                    ? { action: 'updateStrategy', payload: { id, ...(body as object) } }
                    : { action: 'addStrategy', payload: body };
                await propose(env.name, { feature: flagName, ...change });
              }
              // Refused (412) when someone changed the strategy since its editor opened.
              else if (id && editing !== 'new')
                await put(`${base}/strategies/${enc(id)}`, body, editing.etag);
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
