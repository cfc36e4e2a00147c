import {
  ActionIcon,
  Button,
  Card,
  Group,
  NumberInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { MutationError } from '../dialogs';
import { describeMilestone, TEMPLATES_KEY, useTemplates } from '../releasePlans';
import { useCan } from '../session';

interface Draft {
  name: string;
  percent: number;
}

const START: Draft[] = [
  { name: 'Internal', percent: 5 },
  { name: 'Half', percent: 50 },
  { name: 'Everyone', percent: 100 },
];

/** Release plan templates: ordered milestones, each a gradual rollout; Admins make and archive them. */
export default function ReleaseTemplatesPage() {
  const client = useQueryClient();
  const templates = useTemplates();
  const isAdmin = useCan()('ADMIN');
  const [name, setName] = useState('');
  const [milestones, setMilestones] = useState<Draft[]>(START);
  const refresh = () => client.invalidateQueries({ queryKey: TEMPLATES_KEY });
  const create = useMutation({
    mutationFn: () =>
      post('api/admin/release-plan-templates', {
        name: name.trim(),
        milestones: milestones.map((m, i) => ({
          name: m.name.trim(),
          sortOrder: i,
          strategies: [
            {
              name: 'flexibleRollout',
              sortOrder: 0,
              parameters: { rollout: String(m.percent), stickiness: 'default', groupId: '' },
            },
          ],
        })),
      }),
    onSuccess: () => {
      notifyDone('Release template created.');
      setName('');
      setMilestones(START);
    },
    onSettled: refresh,
  });
  const archive = useMutation({
    mutationFn: (id: string) => post(`api/admin/release-plan-templates/archive/${id}`),
    onSuccess: () => notifyDone('Release template archived.'),
    onSettled: refresh,
  });
  const edit = (i: number, change: Partial<Draft>) =>
    setMilestones((list) => list.map((m, at) => (at === i ? { ...m, ...change } : m)));
  return (
    <Stack>
      <Title order={1} size="h2">
        Release templates
      </Title>
      <Text size="sm" c="dimmed">
        A template is a rollout in steps. Apply it to a flag environment on the flag’s page, then start each
        milestone by hand or after a set time.
      </Text>
      {isAdmin && (
        <Card withBorder component="section" aria-label="New release template">
          <Stack gap="xs">
            <TextInput
              label="Template name"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              w={320}
            />
            {milestones.map((m, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the rows are positions in the list
              <Group key={i} align="end">
                <TextInput
                  label={`Milestone ${i + 1}`}
                  value={m.name}
                  onChange={(e) => edit(i, { name: e.currentTarget.value })}
                />
                <NumberInput
                  label={`Rollout % of milestone ${i + 1}`}
                  min={0}
                  max={100}
                  value={m.percent}
                  onChange={(v) => edit(i, { percent: Number(v) || 0 })}
                  w={180}
                />
                <ActionIcon
                  variant="subtle"
                  color="red.9"
                  aria-label={`Remove milestone ${i + 1}`}
                  disabled={milestones.length === 1}
                  onClick={() => setMilestones((list) => list.filter((_, at) => at !== i))}
                >
                  ✕
                </ActionIcon>
              </Group>
            ))}
            <Group>
              <Button
                variant="light"
                onClick={() =>
                  setMilestones((list) => [...list, { name: `Step ${list.length + 1}`, percent: 100 }])
                }
              >
                Add milestone
              </Button>
              <Button
                disabled={!name.trim() || milestones.some((m) => !m.name.trim())}
                loading={create.isPending}
                onClick={() => create.mutate()}
              >
                Create template
              </Button>
            </Group>
            <MutationError error={create.error} />
          </Stack>
        </Card>
      )}
      {templates.isPending ? (
        <Loading />
      ) : templates.isError ? (
        <ErrorState error={templates.error} />
      ) : templates.data.length === 0 ? (
        <Empty>No release templates.</Empty>
      ) : (
        <Table aria-label="Release templates">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Milestones</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {templates.data.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>{t.name}</Table.Td>
                <Table.Td>
                  {t.milestones.map((m) => `${m.name} (${describeMilestone(m)})`).join(' → ')}
                </Table.Td>
                <Table.Td>
                  {isAdmin && (
                    <Button size="xs" variant="outline" color="red.9" onClick={() => archive.mutate(t.id)}>
                      Archive {t.name}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
