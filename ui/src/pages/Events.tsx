import { Anchor, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { enc, get } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { keys } from '../queries';
import type { EventRow } from '../types';

const VERBS: Record<string, string> = {
  'feature-created': 'created the flag',
  'feature-updated': 'updated the flag',
  'feature-metadata-updated': 'updated the flag',
  'feature-archived': 'archived the flag',
  'feature-revived': 'revived the flag',
  'feature-deleted': 'deleted the flag',
  'feature-stale-on': 'marked as stale the flag',
  'feature-stale-off': 'marked as not stale the flag',
  'feature-environment-enabled': 'turned on',
  'feature-environment-disabled': 'turned off',
  'feature-strategy-add': 'added a strategy to',
  'feature-strategy-update': 'changed a strategy of',
  'feature-strategy-remove': 'removed a strategy from',
};

/** One sentence per event: who did what to which flag or object, where. */
export function describeEvent(e: EventRow): string {
  const data = e.data ?? {};
  const name = typeof data.name === 'string' ? data.name : typeof data.id === 'string' ? data.id : '';
  const flagVerb = VERBS[e.type];
  if (flagVerb && e.featureName) {
    const where = e.environment ? ` in ${e.environment}` : '';
    return `${e.createdBy} ${flagVerb} ${e.featureName}${where}${e.project ? ` (project ${e.project})` : ''}.`;
  }
  // `api-token-created` → "created api token"; `feature-tag-add` → "added feature tag".
  const words = e.type.split('-');
  const last = words.pop() ?? '';
  const verb = /ed$/.test(last) ? last : last.endsWith('e') ? `${last}d` : `${last}ed`;
  const object = words.join(' ');
  const where = e.project && words[0] !== 'project' ? ` in project ${e.project}` : '';
  return `${e.createdBy} ${verb} ${object}${name ? ` "${name}"` : ''}${where}.`;
}

export default function EventsPage() {
  const events = useQuery({
    queryKey: keys.events,
    queryFn: () => get<{ events: EventRow[]; totalEvents: number }>('api/admin/events'),
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Event log
      </Title>
      {events.isPending ? (
        <Loading />
      ) : events.isError ? (
        <ErrorState error={events.error} />
      ) : events.data.events.length === 0 ? (
        <Empty>Nothing has happened yet.</Empty>
      ) : (
        <Table striped aria-label="Events">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>What happened</Table.Th>
              <Table.Th>Type</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.data.events.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>
                  <Text size="sm">{new Date(e.createdAt).toLocaleString()}</Text>
                </Table.Td>
                <Table.Td>
                  {describeEvent(e)}{' '}
                  {e.featureName && e.project && (
                    <Anchor
                      component={Link}
                      size="sm"
                      to={`/projects/${enc(e.project)}/flags/${enc(e.featureName)}`}
                    >
                      Open {e.featureName}
                    </Anchor>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {e.type}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
