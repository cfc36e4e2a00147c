import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Group,
  MultiSelect,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { del, enc, get, notifyDone, post, put } from '../api';
import { ChangeDiff, sidesOf } from '../changeDiff';
import { type ChangeRequest, type ChangeView, crKeys } from '../changeRequests';
import { ErrorState, Loading, ON_COLOR } from '../components';
import { MutationError } from '../dialogs';
import { keys, useFlag } from '../queries';
import { useCan, useMe } from '../session';
import type { Flag } from '../types';

const STATE_COLOR: Record<ChangeRequest['state'], string> = {
  Draft: 'gray.8',
  'In review': 'blue.9',
  Approved: 'teal.9',
  Scheduled: 'violet.9',
  Applied: ON_COLOR,
  Cancelled: 'gray.8',
  Rejected: 'red.9',
};

export function StateBadge({ state }: { state: ChangeRequest['state'] }) {
  return <Badge color={STATE_COLOR[state]}>{state}</Badge>;
}

/**
 * A change: what it does, as a diff of the configuration it touches where it has one (else its
 * payload and what it was made against), and why it cannot apply now, if so.
 */
function Change({
  change,
  environment,
  flag,
  onDiscard,
}: {
  change: ChangeView;
  environment: string;
  flag?: Flag | undefined;
  onDiscard?: (() => void) | undefined;
}) {
  const { snapshot, ...proposed } = (change.payload ?? {}) as { snapshot?: unknown };
  const sides = sidesOf(change, environment, flag);
  return (
    <Card withBorder padding="sm" aria-label={`Change ${change.id}`}>
      <Group justify="space-between" align="start">
        <Stack gap={4} style={{ flex: 1 }}>
          <Text fw={600}>{change.action}</Text>
          {sides ? (
            <ChangeDiff sides={sides} label={`Diff of change ${change.id}`} />
          ) : (
            <>
              {Object.keys(proposed).length > 0 && (
                <Code block aria-label="Proposed">
                  {JSON.stringify(proposed, null, 2)}
                </Code>
              )}
              {snapshot !== undefined && (
                <details>
                  <summary>Made against</summary>
                  <Code block>{JSON.stringify(snapshot, null, 2)}</Code>
                </details>
              )}
            </>
          )}
          {change.conflict && (
            <Alert color="red" title="Conflict" role="alert">
              {change.conflict}
            </Alert>
          )}
        </Stack>
        {onDiscard && (
          <Button size="xs" variant="outline" color="red.9" onClick={onDiscard}>
            Discard change {change.id}
          </Button>
        )}
      </Group>
    </Card>
  );
}

/** The changes of one flag, compared with the flag as it is now. */
function FlagChanges(props: {
  projectId: string;
  environment: string;
  name: string;
  changes: ChangeView[];
  live: boolean;
  onDiscard?: ((id: number) => void) | undefined;
}) {
  const flag = useFlag(props.projectId, props.name);
  const discard = props.onDiscard;
  return (
    <Card withBorder component="section" aria-label={`Changes of ${props.name}`}>
      <Title order={2} size="h4" mb="xs">
        <Anchor component={Link} to={`/projects/${enc(props.projectId)}/flags/${enc(props.name)}`}>
          {props.name}
        </Anchor>
      </Title>
      <Stack gap="xs">
        {props.changes.map((c) => (
          <Change
            key={c.id}
            change={c}
            environment={props.environment}
            flag={props.live ? flag.data : undefined}
            onDiscard={discard ? () => discard(c.id) : undefined}
          />
        ))}
      </Stack>
    </Card>
  );
}

/** Who is asked to review the request; its author picks them among those who may approve. */
function Reviewers({
  request,
  base,
  editable,
  refresh,
}: {
  request: ChangeRequest;
  base: string;
  editable: boolean;
  refresh: () => Promise<void>;
}) {
  const candidates = useQuery({
    queryKey: ['available-reviewers', request.project, request.environment],
    queryFn: () =>
      get<{ reviewers: { id: number; name: string | null; email: string; username: string | null }[] }>(
        `api/admin/projects/${enc(request.project)}/change-requests/available-reviewers/${enc(request.environment)}`,
      ),
    enabled: editable,
  });
  const save = useMutation({
    mutationFn: (ids: string[]) => put(`${base}/approvers`, { reviewers: ids.map(Number) }),
    onSettled: refresh,
  });
  const chosen = request.reviewers.flatMap((r) => (r.id === undefined ? [] : [String(r.id)]));
  if (!editable)
    return (
      <Text size="sm">Reviewers asked: {request.reviewers.map((r) => r.username).join(', ') || 'none'}</Text>
    );
  const data = (candidates.data?.reviewers ?? [])
    .filter((r) => r.id !== request.createdBy.id)
    .map((r) => ({ value: String(r.id), label: r.username ?? r.email ?? r.name ?? `#${r.id}` }));
  return (
    <MultiSelect
      label="Reviewers asked"
      data={data}
      value={chosen}
      onChange={(ids) => save.mutate(ids)}
      searchable
      w={420}
    />
  );
}

/** One change request: its changes by flag, its reviews and comments, and what its viewer may do. */
export default function ChangeRequestPage() {
  const { projectId = '', id = '' } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const me = useMe().data?.user.id;
  const can = useCan();
  const base = `api/admin/projects/${enc(projectId)}/change-requests/${enc(id)}`;
  const request = useQuery({
    queryKey: crKeys.one(projectId, Number(id)),
    queryFn: () => get<ChangeRequest>(base),
  });
  const [comment, setComment] = useState('');
  const [scheduledAt, setScheduledAt] = useState('');
  const refresh = async () => {
    await client.invalidateQueries({ queryKey: crKeys.one(projectId, Number(id)) });
    await client.invalidateQueries({ queryKey: crKeys.list(projectId) });
    await client.invalidateQueries({ queryKey: keys.flags(projectId) });
    await client.invalidateQueries({ queryKey: ['flag', projectId] });
  };
  const act = useMutation({
    mutationFn: (body: { state: string; scheduledAt?: string; comment?: string }) =>
      put(`${base}/state`, body),
    onSuccess: (_d, body) => notifyDone(`Change request ${id}: ${body.state}.`),
    onSettled: refresh,
  });
  const discard = useMutation({
    mutationFn: (changeId: number) => del(`${base}/changes/${changeId}`),
    onSuccess: () => notifyDone('Change discarded.'),
    onSettled: refresh,
  });
  const discardDraft = useMutation({
    mutationFn: () => del(base),
    onSuccess: () => {
      notifyDone('Draft discarded.');
      navigate(`/projects/${enc(projectId)}/change-requests`);
    },
  });
  const addComment = useMutation({
    mutationFn: () => post(`${base}/comments`, { text: comment }),
    onSuccess: () => setComment(''),
    onSettled: refresh,
  });
  if (request.isPending) return <Loading />;
  if (request.isError) return <ErrorState error={request.error} />;
  const r = request.data;
  const mine = r.createdBy.id === me;
  const editable = mine && ['Draft', 'In review', 'Approved'].includes(r.state);
  const mayApprove = !mine && can('APPROVE_CHANGE_REQUEST', r.project, r.environment);
  const mayApply = can('APPLY_CHANGE_REQUEST', r.project, r.environment);
  const conflicted =
    r.features.some((f) => f.changes.some((c) => c.conflict)) || r.segments.some((s) => s.conflict);
  const open = ['Draft', 'In review', 'Approved', 'Scheduled'].includes(r.state);
  return (
    <Stack>
      <Anchor component={Link} to={`/projects/${enc(projectId)}/change-requests`} size="sm">
        ← Change requests of {projectId}
      </Anchor>
      <Group>
        <Title order={1} size="h2">
          {r.title}
        </Title>
        <StateBadge state={r.state} />
      </Group>
      <Text size="sm">
        In {r.environment} · by {r.createdBy.username ?? 'someone'} · {new Date(r.createdAt).toLocaleString()}{' '}
        · approvals {r.approvals.length} of {r.minApprovals}
      </Text>
      <Reviewers request={r} base={base} editable={editable} refresh={refresh} />
      {r.schedule && (
        <Alert
          color={r.schedule.status === 'pending' ? 'blue' : 'red'}
          title={`Scheduled (${r.schedule.status})`}
        >
          {new Date(r.schedule.scheduledAt).toLocaleString()}
          {r.schedule.reason ? ` — ${r.schedule.reason}` : ''}
        </Alert>
      )}
      {r.features.map((f) => (
        <FlagChanges
          key={f.name}
          projectId={projectId}
          environment={r.environment}
          // A closed request's changes are not compared with the flag as it is now.
          live={!['Applied', 'Cancelled', 'Rejected'].includes(r.state)}
          name={f.name}
          changes={f.changes}
          onDiscard={editable ? (id) => discard.mutate(id) : undefined}
        />
      ))}
      {r.segments.length > 0 && (
        <Card withBorder component="section" aria-label="Segment changes">
          <Title order={2} size="h4" mb="xs">
            Segments
          </Title>
          {r.segments.map((c) => (
            <Change
              key={c.id}
              change={c}
              environment={r.environment}
              onDiscard={editable ? () => discard.mutate(c.id) : undefined}
            />
          ))}
        </Card>
      )}
      <Group>
        {mine && r.state === 'Draft' && (
          <>
            <Button onClick={() => act.mutate({ state: 'In review' })}>Submit for review</Button>
            <Button variant="outline" color="red.9" onClick={() => discardDraft.mutate()}>
              Discard draft
            </Button>
          </>
        )}
        {mayApprove && r.state === 'In review' && (
          <>
            <Button onClick={() => act.mutate({ state: 'Approved' })}>Approve</Button>
            <Button variant="outline" color="red.9" onClick={() => act.mutate({ state: 'Rejected' })}>
              Reject
            </Button>
          </>
        )}
        {mayApply && (r.state === 'Approved' || r.state === 'Scheduled') && (
          <Button disabled={conflicted} onClick={() => act.mutate({ state: 'Applied' })}>
            {r.state === 'Scheduled' ? 'Apply now' : 'Apply changes'}
          </Button>
        )}
        {mayApply && (r.state === 'Approved' || r.state === 'Scheduled') && (
          <Group gap="xs">
            <TextInput
              type="datetime-local"
              aria-label="Apply at"
              value={scheduledAt}
              onChange={(e) => setScheduledAt(e.currentTarget.value)}
            />
            <Button
              variant="default"
              disabled={!scheduledAt}
              onClick={() =>
                act.mutate({ state: 'Scheduled', scheduledAt: new Date(scheduledAt).toISOString() })
              }
            >
              Schedule
            </Button>
          </Group>
        )}
        {open && r.state !== 'Draft' && (mine || mayApply) && (
          <Button variant="subtle" color="red.9" onClick={() => act.mutate({ state: 'Cancelled' })}>
            Cancel change request
          </Button>
        )}
      </Group>
      <MutationError error={act.error} />
      <MutationError error={discard.error} />
      <Card withBorder component="section" aria-label="Comments">
        <Title order={2} size="h4" mb="xs">
          Comments
        </Title>
        <Stack gap="xs">
          {r.comments.map((c) => (
            <Text key={c.id} size="sm">
              <b>{c.createdBy.username ?? 'someone'}</b>: {c.text}
            </Text>
          ))}
          <Textarea
            aria-label="Comment"
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
            autosize
            minRows={2}
          />
          <Group>
            <Button size="xs" disabled={!comment.trim()} onClick={() => addComment.mutate()}>
              Comment
            </Button>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
