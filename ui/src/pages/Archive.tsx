import { Anchor, Button, Group, Pagination, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { enc, get, notifyDone, post } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { keys } from '../queries';
import { useCan } from '../session';
import { DeleteArchivedFlag } from './ArchiveDelete';

/** `GET api/admin/archive/features`: the parts shown. */
export interface ArchivedFlag {
  name: string;
  project: string;
  type: string;
  description: string | null;
  archivedAt: string | null;
}

export const archiveKey = ['archive'] as const;
const PAGE_SIZE = 50;

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'unknown');

/** After a revive or delete: the archive, and the project's lists and health. */
export function useRefreshAfter() {
  const client = useQueryClient();
  return (flag: ArchivedFlag) =>
    Promise.all([
      client.invalidateQueries({ queryKey: archiveKey }),
      client.invalidateQueries({ queryKey: keys.flags(flag.project) }),
      client.invalidateQueries({ queryKey: keys.flag(flag.project, flag.name) }),
      client.invalidateQueries({ queryKey: keys.health(flag.project) }),
      client.invalidateQueries({ queryKey: keys.projects }),
    ]);
}

/**
 * Archived flags of every project, newest first: revive one (UPDATE_FEATURE in its project) or
 * delete it for good (DELETE_FEATURE; the name must be typed). The search filters in the browser
 * (the endpoint answers the whole archive) and stays in the URL (`?q=`).
 */
export default function ArchivePage() {
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const needle = params.get('q') ?? '';
  const [page, setPage] = useState(1);
  const [deleting, setDeleting] = useState<ArchivedFlag | null>(null);
  const archive = useQuery({
    queryKey: archiveKey,
    queryFn: async () =>
      (await get<{ features: ArchivedFlag[] }>('api/admin/archive/features')).features.sort((a, b) =>
        (b.archivedAt ?? '').localeCompare(a.archivedAt ?? ''),
      ),
  });
  const all = archive.data ?? [];
  const lower = needle.trim().toLowerCase();
  const shown = lower
    ? all.filter((f) =>
        [f.name, f.project, f.type, f.description ?? ''].some((s) => s.toLowerCase().includes(lower)),
      )
    : all;
  const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const current = Math.min(page, pages);
  const rows = shown.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE);
  const mayRevive = (f: ArchivedFlag) => can('UPDATE_FEATURE', f.project);
  const mayDelete = (f: ArchivedFlag) => can('DELETE_FEATURE', f.project);
  const actions = rows.some((f) => mayRevive(f) || mayDelete(f));

  return (
    <Stack>
      <Title order={1} size="h2">
        Archive
      </Title>
      <Text c="dimmed" size="sm">
        Archived flags are off for every SDK. Revive one to bring it back to its project, or delete it for
        good to free its name.
      </Text>
      <TextInput
        label="Search archived flags"
        placeholder="Name, project, type or description"
        value={needle}
        onChange={(e) => {
          const q = e.currentTarget.value;
          setPage(1);
          setParams(q ? { q } : {}, { replace: true });
        }}
        w={360}
      />
      {archive.isPending ? (
        <Loading />
      ) : archive.isError ? (
        <ErrorState error={archive.error} />
      ) : all.length === 0 ? (
        <Empty>The archive is empty. Flags archived in a project appear here.</Empty>
      ) : shown.length === 0 ? (
        <Empty>No archived flag matches “{needle}”.</Empty>
      ) : (
        <>
          <Text size="sm" role="status">
            {shown.length === all.length
              ? `${all.length} archived ${all.length === 1 ? 'flag' : 'flags'}`
              : `${shown.length} of ${all.length} archived flags match`}
          </Text>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Project</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Archived</Table.Th>
                {actions && <Table.Th>Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((f) => (
                <Table.Tr key={f.name}>
                  <Table.Td>
                    <Text fw={600} size="sm">
                      {f.name}
                    </Text>
                    {f.description && (
                      <Text size="sm" c="dimmed">
                        {f.description}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/projects/${enc(f.project)}`} size="sm">
                      {f.project}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{f.type}</Table.Td>
                  <Table.Td>{when(f.archivedAt)}</Table.Td>
                  {actions && (
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        {mayRevive(f) && <Revive flag={f} />}
                        {mayDelete(f) && (
                          <Button
                            size="xs"
                            color="red.9"
                            variant="outline"
                            aria-label={`Delete ${f.name}`}
                            onClick={() => setDeleting(f)}
                          >
                            Delete
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {pages > 1 && (
            <Pagination
              total={pages}
              value={current}
              onChange={setPage}
              getControlProps={(control) => ({ 'aria-label': `${control} page` })}
              getItemProps={(n) => ({ 'aria-label': `Page ${n}` })}
            />
          )}
        </>
      )}
      {deleting && <DeleteArchivedFlag flag={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}

function Revive({ flag }: { flag: ArchivedFlag }) {
  const refresh = useRefreshAfter();
  const revive = useMutation({
    mutationFn: () => post(`api/admin/archive/revive/${enc(flag.name)}`),
    onSuccess: async () => {
      await refresh(flag);
      notifyDone(`Flag "${flag.name}" revived in project ${flag.project}.`);
    },
  });
  return (
    <Button
      size="xs"
      variant="default"
      aria-label={`Revive ${flag.name}`}
      loading={revive.isPending}
      onClick={() => revive.mutate()}
    >
      Revive
    </Button>
  );
}
