import {
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Pagination,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  Textarea,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { enc, get, notifyDone, post } from '../api';
import { Empty, ErrorState, Loading, OFF_COLOR, ON_COLOR } from '../components';
import { keys, useEnvironments } from '../queries';
import { useCan } from '../session';
import type { Flag, SearchFlag } from '../types';
import { flagListView, forgetPrefetched, PAGE_SIZE, searchPath, takePrefetched } from './projectFlagsRoute';

// The health chart is its own chunk: the flag list shows first.
const ProjectHealth = lazy(() => import('./ProjectHealth'));

const FLAG_TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission'];

interface SearchResult {
  features: SearchFlag[];
  total: number;
}

/** The flags of a project: search, sort and page in the URL; one switch per environment. */
export default function ProjectFlagsPage() {
  const projectId = useParams().projectId!;
  const [params, setParams] = useSearchParams();
  const { query, sortBy, sortOrder, page } = flagListView(params);
  const can = useCan();
  const environments = useEnvironments();
  const [creating, setCreating] = useState(false);
  const [draft, setDraft] = useState(query);
  const searchBox = useRef<HTMLInputElement>(null);

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
  };

  // The URL follows the search box after a short pause.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on typing only
  useEffect(() => {
    const timer = setTimeout(() => {
      if (draft !== query) update({ query: draft, page: undefined });
    }, 250);
    return () => clearTimeout(timer);
  }, [draft]);

  // `/` focuses the search box, as on GitHub.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.key !== '/' || target.closest('input, textarea, select, [contenteditable]')) return;
      event.preventDefault();
      searchBox.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const searchKey = [...keys.flags(projectId), { query, sortBy, sortOrder, page }] as const;
  const search = useQuery({
    queryKey: searchKey,
    queryFn: () => {
      // The route's loader may have asked already (projectFlagsRoute.tsx).
      const path = searchPath(projectId, { query, sortBy, sortOrder, page });
      return takePrefetched<SearchResult>(path) ?? get<SearchResult>(path);
    },
    placeholderData: keepPreviousData,
  });

  return (
    <Stack>
      <Group justify="space-between">
        <Group gap="md" align="baseline">
          <Title order={1} size="h2">
            Flags in {projectId}
          </Title>
          <Anchor component={Link} to={`/projects/${enc(projectId)}/settings`}>
            Settings
          </Anchor>
          <Anchor component={Link} to={`/projects/${enc(projectId)}/status`}>
            Status
          </Anchor>
          <Anchor component={Link} to={`/projects/${enc(projectId)}/change-requests`}>
            Change requests
          </Anchor>
        </Group>
        {can('CREATE_FEATURE', projectId) && <Button onClick={() => setCreating(true)}>New flag</Button>}
      </Group>
      {/* Asked once the list can show: the health report carries every flag of the project (6 MB
          at 10,000), which would otherwise be built, sent and parsed while the first rows wait. */}
      {!search.isPending && !environments.isPending && (
        <Suspense fallback={null}>
          <ProjectHealth projectId={projectId} />
        </Suspense>
      )}
      <Group align="end">
        <TextInput
          ref={searchBox}
          label="Search flags"
          description="Press / to focus"
          placeholder="Name, description or tag"
          value={draft}
          onChange={(e) => setDraft(e.currentTarget.value)}
          w={320}
        />
        <Select
          label="Sort by"
          data={[
            { value: 'createdAt', label: 'Created' },
            { value: 'name', label: 'Name' },
            { value: 'type', label: 'Type' },
            { value: 'lastSeenAt', label: 'Last seen' },
          ]}
          value={sortBy.startsWith('environment:') ? null : sortBy}
          onChange={(v) => update({ sortBy: v ?? undefined, page: undefined })}
          allowDeselect={false}
          w={160}
        />
        <Select
          label="Order"
          data={[
            { value: 'asc', label: 'Ascending' },
            { value: 'desc', label: 'Descending' },
          ]}
          value={sortOrder}
          onChange={(v) => update({ sortOrder: v ?? undefined })}
          allowDeselect={false}
          w={140}
        />
      </Group>
      {search.isPending || environments.isPending ? (
        <Loading />
      ) : search.isError ? (
        <ErrorState error={search.error} />
      ) : environments.isError ? (
        <ErrorState error={environments.error} />
      ) : search.data.total === 0 ? (
        <Empty>{query ? `No flag matches "${query}".` : 'No flags in this project yet.'}</Empty>
      ) : (
        <>
          <Text size="sm" c="dimmed" aria-live="polite">
            {search.data.total} flag{search.data.total === 1 ? '' : 's'}
          </Text>
          <FlagTable
            // a new page, search or sort starts at the top of the list
            key={`${page}/${query}/${sortBy}/${sortOrder}`}
            projectId={projectId}
            flags={search.data.features}
            environments={environments.data.map((e) => e.name)}
            searchKey={searchKey}
            sort={{ sortBy, sortOrder }}
            onSort={(by) =>
              update({ sortBy: by, sortOrder: by === sortBy && sortOrder === 'asc' ? 'desc' : 'asc' })
            }
          />
          {search.data.total > PAGE_SIZE && (
            <Pagination
              total={Math.ceil(search.data.total / PAGE_SIZE)}
              value={page}
              onChange={(p) => update({ page: String(p) })}
              getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
              getControlProps={(control) => ({ 'aria-label': `${control} page` })}
            />
          )}
        </>
      )}
      <CreateFlag projectId={projectId} opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}

function FlagTable(props: {
  projectId: string;
  flags: SearchFlag[];
  environments: string[];
  searchKey: readonly unknown[];
  sort: { sortBy: string; sortOrder: string };
  onSort: (by: string) => void;
}) {
  const { projectId, flags, environments, searchKey, sort, onSort } = props;
  const can = useCan();
  const client = useQueryClient();
  const scroller = useRef<HTMLDivElement>(null);

  // Optimistic: the switch moves at once and moves back if the server refuses.
  const toggle = useMutation({
    mutationFn: (v: { flag: string; env: string; on: boolean }) =>
      post(
        `api/admin/projects/${enc(projectId)}/features/${enc(v.flag)}/environments/${enc(v.env)}/${v.on ? 'on' : 'off'}`,
      ),
    onMutate: async (v) => {
      forgetPrefetched();
      await client.cancelQueries({ queryKey: searchKey });
      const before = client.getQueryData<SearchResult>(searchKey);
      client.setQueryData<SearchResult>(
        searchKey,
        (old) =>
          old && {
            ...old,
            features: old.features.map((f) =>
              f.name !== v.flag
                ? f
                : {
                    ...f,
                    environments: f.environments.map((e) => (e.name === v.env ? { ...e, enabled: v.on } : e)),
                  },
            ),
          },
      );
      return { before };
    },
    onError: (_error, _v, context) => client.setQueryData(searchKey, context?.before),
    onSuccess: (_data, v) => notifyDone(`${v.flag} is ${v.on ? 'on' : 'off'} in ${v.env}.`),
    onSettled: () => client.invalidateQueries({ queryKey: keys.flags(projectId) }),
  });

  const columns = useMemo<ColumnDef<SearchFlag>[]>(
    () => [
      {
        id: 'name',
        header: 'Name',
        cell: ({ row }) => (
          <Anchor component={Link} to={`/projects/${enc(projectId)}/flags/${enc(row.original.name)}`}>
            {row.original.name}
          </Anchor>
        ),
      },
      { id: 'type', header: 'Type', cell: ({ row }) => row.original.type },
      {
        id: 'createdAt',
        header: 'Created',
        cell: ({ row }) => new Date(row.original.createdAt).toLocaleDateString(),
      },
      ...environments.map(
        (env): ColumnDef<SearchFlag> => ({
          id: `environment:${env}`,
          header: env,
          cell: ({ row }) => {
            const flag = row.original;
            const enabled = flag.environments.find((e) => e.name === env)?.enabled ?? false;
            if (!can('UPDATE_FEATURE_ENVIRONMENT', projectId, env)) {
              return <Badge color={enabled ? ON_COLOR : OFF_COLOR}>{enabled ? 'On' : 'Off'}</Badge>;
            }
            return (
              <Switch
                aria-label={`${flag.name} in ${env}`}
                checked={enabled}
                onChange={(e) => toggle.mutate({ flag: flag.name, env, on: e.currentTarget.checked })}
              />
            );
          },
        }),
      ),
    ],
    [environments, projectId, can, toggle.mutate],
  );
  const table = useReactTable({
    data: flags,
    columns,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
  });
  const rows = table.getRowModel().rows;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 45,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const top = items[0]?.start ?? 0;
  const bottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);

  return (
    <div className="flag-scroller" ref={scroller}>
      <Table className="flag-table" highlightOnHover>
        <Table.Thead>
          {table.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => {
                const active = sort.sortBy === header.column.id;
                return (
                  <Table.Th
                    key={header.id}
                    aria-sort={active ? (sort.sortOrder === 'desc' ? 'descending' : 'ascending') : undefined}
                  >
                    <UnstyledButton onClick={() => onSort(header.column.id)} fw={600} fz="sm">
                      {flexRender(header.column.columnDef.header, header.getContext())}
                      {active ? (sort.sortOrder === 'desc' ? ' ▼' : ' ▲') : ''}
                    </UnstyledButton>
                  </Table.Th>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {top > 0 && (
            <tr>
              <td style={{ height: top, padding: 0 }} colSpan={columns.length} />
            </tr>
          )}
          {items.map((item) => {
            const row = rows[item.index]!;
            return (
              <Table.Tr key={row.id} data-index={item.index} ref={virtualizer.measureElement}>
                {row.getVisibleCells().map((cell) => (
                  <Table.Td key={cell.id}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </Table.Td>
                ))}
              </Table.Tr>
            );
          })}
          {bottom > 0 && (
            <tr>
              <td style={{ height: bottom, padding: 0 }} colSpan={columns.length} />
            </tr>
          )}
        </Table.Tbody>
      </Table>
    </div>
  );
}

function CreateFlag(props: { projectId: string; opened: boolean; onClose: () => void }) {
  const { projectId, opened, onClose } = props;
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [type, setType] = useState('release');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => {
      forgetPrefetched();
      return post<Flag>(`api/admin/projects/${enc(projectId)}/features`, {
        name,
        type,
        ...(description && { description }),
      });
    },
    onSuccess: async (flag) => {
      await client.invalidateQueries({ queryKey: keys.flags(projectId) });
      notifyDone(`Flag "${flag.name}" created.`);
      onClose();
      navigate(`/projects/${enc(projectId)}/flags/${enc(flag.name)}`);
    },
  });
  return (
    <Modal opened={opened} onClose={onClose} title="New flag" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Stack>
          <TextInput
            label="Flag name"
            required
            data-autofocus
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <Select
            label="Flag type"
            data={FLAG_TYPES}
            value={type}
            onChange={(v) => setType(v ?? 'release')}
            allowDeselect={false}
          />
          <Textarea
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
          />
          <Button type="submit" loading={create.isPending}>
            Create flag
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}
