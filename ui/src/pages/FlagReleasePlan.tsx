import { Badge, Button, Group, NumberInput, Select, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, enc, get, notifyDone, post, put } from '../api';
import { useNeedsChangeRequest, useProposeChange } from '../changeRequests';
import { ON_COLOR } from '../components';
import { MutationError } from '../dialogs';
import { describeMilestone, type Milestone, type Plan, useTemplates } from '../releasePlans';
import { useCan } from '../session';

/**
 * The release plan of one flag environment: apply a template, start milestones, let a milestone
 * move on after a set time; the active one and the time to the next. Where the environment
 * requires change requests the caller may not skip, each write goes into their draft instead, as
 * the change Unleash names for it.
 */
export function FlagReleasePlan(props: {
  projectId: string;
  flagName: string;
  env: string;
  refresh: () => unknown;
}) {
  const { projectId, flagName, env } = props;
  const base = `api/admin/projects/${enc(projectId)}/features/${enc(flagName)}/environments/${enc(env)}`;
  const key = ['release-plans', projectId, flagName, env];
  const client = useQueryClient();
  const can = useCan()('UPDATE_FEATURE_STRATEGY', projectId, env);
  const plans = useQuery({ queryKey: key, queryFn: () => get<Plan[]>(`${base}/release-plans`) });
  const templates = useTemplates();
  const [template, setTemplate] = useState<string | null>(null);
  const done = async () => {
    await client.invalidateQueries({ queryKey: key });
    await props.refresh();
  };
  const act = useMutation({
    mutationFn: (run: () => Promise<unknown>) => run(),
    onSettled: done,
  });
  const viaDraft = useNeedsChangeRequest(projectId)(env);
  const propose = useProposeChange(projectId);
  /** The write, directly or as a change in the caller's draft. */
  const write = (
    direct: () => Promise<unknown>,
    change: { action: string; payload: unknown },
    message?: string,
  ) =>
    act.mutate(async () => {
      if (viaDraft) {
        await propose(env, { feature: flagName, ...change });
        notifyDone(`Added to your change request for ${env}.`);
      } else {
        await direct();
        if (message) notifyDone(message);
      }
    });
  const plan = plans.data?.[0];
  if (!plan) {
    if (!can || !templates.data?.length) return null;
    return (
      <Group mt="sm" align="end" gap="xs">
        <Select
          size="xs"
          label={`Release template for ${env}`}
          data={templates.data.map((t) => ({ value: t.id, label: t.name }))}
          value={template}
          onChange={setTemplate}
        />
        <Button
          size="xs"
          variant="light"
          disabled={!template}
          onClick={() =>
            write(
              () => post(`${base}/release-plans`, { templateId: template }),
              { action: 'addReleasePlan', payload: { templateId: template } },
              `Release plan added in ${env}.`,
            )
          }
        >
          Add release plan in {env}
        </Button>
        <MutationError error={act.error} />
      </Group>
    );
  }
  const activeIndex = plan.milestones.findIndex((m) => m.id === plan.activeMilestoneId);
  return (
    <Stack mt="sm" gap="xs" component="section" aria-label={`Release plan in ${env}`}>
      <Group justify="space-between">
        <Text fw={600}>Release plan: {plan.name}</Text>
        {can && (
          <Button
            size="xs"
            variant="outline"
            color="red.9"
            onClick={() =>
              write(() => del(`${base}/release-plans/${plan.id}`), {
                action: 'deleteReleasePlan',
                payload: { planId: plan.id },
              })
            }
          >
            Remove release plan in {env}
          </Button>
        )}
      </Group>
      <Table aria-label={`Milestones in ${env}`}>
        <Table.Tbody>
          {plan.milestones.map((m, i) => (
            <Table.Tr key={m.id}>
              <Table.Td>
                {m.name}{' '}
                {m.id === plan.activeMilestoneId && (
                  <Badge size="sm" color={m.pausedAt ? 'gray.8' : ON_COLOR}>
                    {m.pausedAt ? 'active, paused' : 'active'}
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{describeMilestone(m)}</Table.Td>
              <Table.Td>{nextStep(m, plan.milestones[i + 1])}</Table.Td>
              <Table.Td>
                {can && (
                  <Group gap="xs" wrap="nowrap">
                    {m.id !== plan.activeMilestoneId && (
                      <Button
                        size="xs"
                        onClick={() =>
                          write(
                            () => post(`${base}/release-plans/${plan.id}/milestones/${m.id}/start`),
                            { action: 'startMilestone', payload: { planId: plan.id, milestoneId: m.id } },
                            `${m.name} started in ${env}.`,
                          )
                        }
                      >
                        Start {m.name}
                      </Button>
                    )}
                    {plan.milestones[i + 1] && (
                      <Progression
                        milestone={m}
                        onSet={(minutes) => {
                          const next = {
                            targetMilestone: plan.milestones[i + 1]?.id,
                            transitionCondition: { intervalMinutes: minutes },
                          };
                          if (minutes === null) {
                            write(() => del(`${base}/progressions/${m.id}`), {
                              action: 'deleteMilestoneProgression',
                              payload: { sourceMilestone: m.id },
                            });
                          } else {
                            write(() => put(`${base}/progressions/${m.id}`, next), {
                              action: 'changeMilestoneProgression',
                              payload: { sourceMilestone: m.id, ...next },
                            });
                          }
                        }}
                      />
                    )}
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {can && activeIndex >= 0 && plan.milestones[activeIndex]?.pausedAt && (
        <Button
          size="xs"
          variant="light"
          onClick={() =>
            write(() => post(`${base}/progressions/${plan.id}/resume`), {
              action: 'resumeMilestoneProgression',
              payload: { planId: plan.id },
            })
          }
        >
          Resume progression in {env}
        </Button>
      )}
      <MutationError error={act.error} />
    </Stack>
  );
}

/** When the milestone moves on: at a time (from its start), or by hand. */
function nextStep(m: Milestone, next: Milestone | undefined): string {
  if (!next) return '';
  if (!m.transitionCondition) return 'next: by hand';
  const minutes = m.transitionCondition.intervalMinutes;
  if (!m.startedAt || m.progressionExecutedAt) return `next after ${minutes} min`;
  if (m.pausedAt) return 'progression paused';
  const due = new Date(m.startedAt).getTime() + minutes * 60_000;
  const left = Math.max(0, Math.round((due - Date.now()) / 60_000));
  return `${next.name} in ${left} min`;
}

function Progression({
  milestone,
  onSet,
}: {
  milestone: Milestone;
  onSet: (minutes: number | null) => void;
}) {
  const [minutes, setMinutes] = useState<number | string>(
    milestone.transitionCondition?.intervalMinutes ?? 60,
  );
  return (
    <Group gap={4} wrap="nowrap">
      <NumberInput
        size="xs"
        w={90}
        min={1}
        aria-label={`Minutes after ${milestone.name}`}
        value={minutes}
        onChange={setMinutes}
      />
      <Button size="xs" variant="light" onClick={() => onSet(Number(minutes) || 1)}>
        Move on after {milestone.name}
      </Button>
      {milestone.transitionCondition && (
        <Button size="xs" variant="subtle" onClick={() => onSet(null)}>
          By hand after {milestone.name}
        </Button>
      )}
    </Group>
  );
}
