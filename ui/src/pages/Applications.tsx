import { Anchor, Group, Pagination, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { enc, get } from '../api';
import { Empty, ErrorState, Loading } from '../components';
import { applicationKeys } from './AppKeys';

const PAGE_SIZE = 50;

/** An item of `GET api/admin/metrics/applications` (the list has no instances or SDKs). */
interface ApplicationListItem {
  appName: string;
  description: string | null;
  url: string | null;
  createdAt: string;
  updatedAt: string | null;
  strategies: string[];
  usage: { project: string; environments: string[] }[];
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** Applications SDKs registered: name search, sort and page in the URL, served by the API. */
export default function ApplicationsPage() {
  const [params, setParams] = useSearchParams();
  const query = params.get('query') ?? '';
  const sortBy = params.get('sortBy') ?? 'appName';
  const sortOrder = params.get('sortOrder') === 'desc' ? 'desc' : 'asc';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const [draft, setDraft] = useState(query);

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === '') next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
  };

  // The URL (and so the request) follows the search box after a short pause.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on typing only
  useEffect(() => {
    const timer = setTimeout(() => {
      if (draft !== query) update({ query: draft, page: undefined });
    }, 250);
    return () => clearTimeout(timer);
  }, [draft]);

  const list = useQuery({
    queryKey: applicationKeys.list({ query, sortBy, sortOrder, page }),
    queryFn: () => {
      const qs = new URLSearchParams({
        sortBy,
        sortOrder,
        offset: String((page - 1) * PAGE_SIZE),
        limit: String(PAGE_SIZE),
      });
      if (query) qs.set('query', query);
      return get<{ applications: ApplicationListItem[]; total: number }>(
        `api/admin/metrics/applications?${qs}`,
      );
    },
    placeholderData: keepPreviousData,
  });

  return (
    <Stack>
      <Title order={1} size="h2">
        Applications
      </Title>
      <Group align="end">
        <TextInput
          label="Search applications"
          placeholder="Part of the name"
          value={draft}
          onChange={(e) => setDraft(e.currentTarget.value)}
          w={320}
        />
        <Select
          label="Sort by"
          data={[
            { value: 'appName', label: 'Name' },
            { value: 'createdAt', label: 'First seen' },
            { value: 'updatedAt', label: 'Last updated' },
          ]}
          value={sortBy}
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
          onChange={(v) => update({ sortOrder: v ?? undefined, page: undefined })}
          allowDeselect={false}
          w={140}
        />
      </Group>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <ErrorState error={list.error} />
      ) : list.data.total === 0 ? (
        <Empty>
          {query
            ? `No application name contains "${query}".`
            : 'No applications yet. An application appears here when an SDK registers with a client or frontend API token (see API tokens), or when its SDK reports metrics.'}
        </Empty>
      ) : (
        <>
          <Text size="sm" c="dimmed" aria-live="polite">
            {list.data.total} application{list.data.total === 1 ? '' : 's'}
          </Text>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Projects and environments (48 h)</Table.Th>
                <Table.Th>First seen</Table.Th>
                <Table.Th>Last updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.applications.map((a) => (
                <Table.Tr key={a.appName}>
                  <Table.Td>
                    <Anchor component={Link} to={`/applications/${enc(a.appName)}`} fw={600}>
                      {a.appName}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{a.description ?? ''}</Table.Td>
                  <Table.Td>
                    {a.usage.length === 0
                      ? 'none reported'
                      : a.usage.map((u) => (
                          <Text size="sm" key={u.project}>
                            {u.project}: {u.environments.join(', ')}
                          </Text>
                        ))}
                  </Table.Td>
                  <Table.Td>{when(a.createdAt)}</Table.Td>
                  <Table.Td>{when(a.updatedAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {list.data.total > PAGE_SIZE && (
            <Pagination
              total={Math.ceil(list.data.total / PAGE_SIZE)}
              value={page}
              onChange={(p) => update({ page: String(p) })}
              getItemProps={(p) => ({ 'aria-label': `Page ${p}` })}
              getControlProps={(control) => ({ 'aria-label': `${control} page` })}
            />
          )}
        </>
      )}
    </Stack>
  );
}
