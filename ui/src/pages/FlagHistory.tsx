import { Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { enc, get } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { keys } from '../queries';

/** An event of `GET api/admin/events/:featureName` (all of the flag's events, newest first). */
interface FlagEvent {
  id: number;
  createdAt: string;
  type: string;
  createdBy: string;
  environment?: string | null;
  data?: unknown;
  preData?: unknown;
}

/** One changed key: its value before and after as short text; undefined when absent. */
export interface Change {
  key: string;
  before: string | undefined;
  after: string | undefined;
}

const PAGE = 10;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value as compact JSON (strings quoted, so an empty one shows), cut at 300 characters. */
const show = (v: unknown) => {
  if (v === undefined) return undefined;
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
};

/**
 * The top-level keys whose values differ between `preData` and `data`; nested objects compare and
 * show as JSON. A value that is not an object (a list, a string) counts as one key, "value".
 */
export function diffEvent(before: unknown, after: unknown): Change[] {
  const asObject = (v: unknown) => (isRecord(v) ? v : v == null ? {} : { value: v });
  const b = asObject(before);
  const a = asObject(after);
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  // An empty value (null, [], {}) where the other side has none says nothing: left out.
  const blank = (v: unknown) => v == null || (typeof v === 'object' && Object.keys(v).length === 0);
  return names
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .filter((k) => !((!(k in a) && blank(b[k])) || (!(k in b) && blank(a[k]))))
    .map((k) => ({ key: k, before: show(b[k]), after: show(a[k]) }));
}

/** The flag's event timeline, newest first, ten at a time. */
export function FlagHistory(props: { projectId: string; flagName: string }) {
  const { projectId, flagName } = props;
  const [shown, setShown] = useState(PAGE);
  // Under the flag's key: every write on the page that refreshes the flag refreshes this too.
  const events = useQuery({
    queryKey: [...keys.flag(projectId, flagName), 'events'],
    queryFn: () => get<{ events: FlagEvent[] }>(`api/admin/events/${enc(flagName)}`),
  });
  return (
    <Card withBorder component="section" aria-labelledby="flag-history-title">
      <Title order={2} size="h4" id="flag-history-title" mb="sm">
        History
      </Title>
      {events.isPending ? (
        <Loading />
      ) : events.isError ? (
        <ErrorState error={events.error} />
      ) : events.data.events.length === 0 ? (
        <Empty>No events recorded for this flag.</Empty>
      ) : (
        <Stack gap="xs">
          <Stack component="ol" gap="xs" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Events">
            {events.data.events.slice(0, shown).map((e) => (
              <EventItem key={e.id} event={e} />
            ))}
          </Stack>
          {events.data.events.length > shown && (
            <Group>
              <Button size="xs" variant="default" onClick={() => setShown((n) => n + PAGE)}>
                Show older events ({events.data.events.length - shown} more)
              </Button>
            </Group>
          )}
        </Stack>
      )}
    </Card>
  );
}

function EventItem({ event: e }: { event: FlagEvent }) {
  const changes = diffEvent(e.preData, e.data);
  return (
    <Card component="li" withBorder padding="xs">
      <Group gap="xs">
        <Badge variant="outline" color="indigo.9" tt="none">
          {e.type}
        </Badge>
        <Text size="sm">
          by {e.createdBy}
          {e.environment ? ` in ${e.environment}` : ''} ·{' '}
          <time dateTime={e.createdAt}>{new Date(e.createdAt).toLocaleString()}</time>
        </Text>
      </Group>
      {changes.length > 0 && (
        <Stack component="ul" gap={2} mt={4} mb={0} pl="md" aria-label={`Changes in event ${e.id}`}>
          {changes.map((c) => (
            <Text component="li" size="sm" key={c.key} style={{ overflowWrap: 'anywhere' }}>
              <Text span fw={600} ff="monospace" size="sm">
                {c.key}
              </Text>
              : <Value text={c.before} /> → <Value text={c.after} />
            </Text>
          ))}
        </Stack>
      )}
    </Card>
  );
}

function Value({ text }: { text: string | undefined }) {
  return text === undefined ? (
    <Text span size="sm" fs="italic">
      (none)
    </Text>
  ) : (
    <Text span size="sm" ff="monospace">
      {text}
    </Text>
  );
}
