import { Button, Checkbox, Group, Modal, MultiSelect, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { del, enc, get, notifyDone, post } from '../api';
import { useDraftEnvironment, useProposeChange } from '../changeRequests';
import { keys } from '../queries';
import { useCan } from '../session';
import type { Flag } from '../types';

export interface Dependency {
  feature: string;
  enabled?: boolean;
  variants?: string[];
}

export const describeDependency = (d: Dependency) =>
  `${d.feature} ${d.enabled === false ? 'being off' : 'being on'}${
    d.variants?.length ? ` with variant ${d.variants.join(' or ')}` : ''
  }`;

/** The flag's parents, with add and remove for those who may UPDATE_FEATURE_DEPENDENCY. */
export function FlagDependencies(props: { projectId: string; flagName: string; dependencies: Dependency[] }) {
  const { projectId, flagName, dependencies } = props;
  const can = useCan();
  const client = useQueryClient();
  const [adding, setAdding] = useState(false);
  // The server's permission for these routes (Editors hold it with UPDATE_FEATURE).
  const editable = can('UPDATE_FEATURE_DEPENDENCY', projectId);
  const base = `api/admin/projects/${enc(projectId)}/features/${enc(flagName)}/dependencies`;
  const refresh = () => client.invalidateQueries({ queryKey: keys.flag(projectId, flagName) });
  // Where change requests are required, dependency changes go into the caller's draft.
  const draftIn = useDraftEnvironment(projectId);
  const propose = useProposeChange(projectId);
  const remove = useMutation({
    mutationFn: (parent: string) =>
      draftIn
        ? propose(draftIn, { feature: flagName, action: 'deleteDependency', payload: { feature: parent } })
        : del(`${base}/${enc(parent)}`),
    onSuccess: (_d, parent) =>
      notifyDone(
        draftIn
          ? `Added to your change request for ${draftIn}.`
          : `${flagName} no longer depends on ${parent}.`,
      ),
    onSettled: refresh,
  });
  return (
    <Group gap="xs">
      <Text size="sm">
        <Text span fw={600}>
          Depends on:{' '}
        </Text>
        {dependencies.length === 0 && 'no other flag'}
      </Text>
      {dependencies.map((d) => (
        <Group key={d.feature} gap={4} wrap="nowrap">
          <Text size="sm">{describeDependency(d)}</Text>
          {editable && (
            <Button
              size="compact-xs"
              variant="outline"
              color="red.9"
              loading={remove.isPending && remove.variables === d.feature}
              onClick={() => remove.mutate(d.feature)}
            >
              Remove dependency on {d.feature}
            </Button>
          )}
        </Group>
      ))}
      {editable && (
        <Button size="compact-xs" variant="default" onClick={() => setAdding(true)}>
          Add parent flag
        </Button>
      )}
      {adding && (
        <AddParent
          projectId={projectId}
          flagName={flagName}
          base={base}
          draftIn={draftIn}
          onClose={() => setAdding(false)}
          onAdded={refresh}
        />
      )}
    </Group>
  );
}

interface Candidate {
  name: string;
  dependencyType?: 'parent' | 'child' | null;
}

function AddParent(props: {
  projectId: string;
  flagName: string;
  base: string;
  /** The environment whose draft the dependency goes into, when change requests are required. */
  draftIn: string | undefined;
  onClose: () => void;
  onAdded: () => Promise<unknown>;
}) {
  const { projectId, flagName, base, draftIn, onClose, onAdded } = props;
  const propose = useProposeChange(projectId);
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search, 200);
  const [parent, setParent] = useState<string | null>(null);
  const [enabled, setEnabled] = useState(true);
  const [variants, setVariants] = useState<string[]>([]);
  // Parents come from the same project and have no parents of their own (one level only).
  const candidates = useQuery({
    queryKey: ['parent-candidates', projectId, parent ? '' : query],
    queryFn: async () => {
      const params = new URLSearchParams({ project: `IS:${projectId}`, limit: '50' });
      if (!parent && query) params.set('query', query);
      const found = await get<{ features: Candidate[] }>(`api/admin/search/features?${params}`);
      return found.features
        .filter((f) => f.name !== flagName && f.dependencyType !== 'child')
        .map((f) => f.name);
    },
  });
  const parentFlag = useQuery({
    queryKey: keys.flag(projectId, parent ?? ''),
    queryFn: () => get<Flag>(`api/admin/projects/${enc(projectId)}/features/${enc(parent ?? '')}`),
    enabled: parent !== null,
  });
  const parentVariants = [
    ...new Set(
      (parent ? (parentFlag.data?.environments ?? []) : []).flatMap((e) =>
        (e.variants ?? []).map((v) => v.name),
      ),
    ),
  ];
  const add = useMutation({
    mutationFn: () => {
      const dependency = { feature: parent, enabled, ...(enabled && variants.length > 0 && { variants }) };
      return draftIn
        ? propose(draftIn, { feature: flagName, action: 'addDependency', payload: dependency })
        : post(base, dependency);
    },
    onSuccess: async () => {
      notifyDone(
        draftIn ? `Added to your change request for ${draftIn}.` : `${flagName} now depends on ${parent}.`,
      );
      await onAdded();
      onClose();
    },
  });
  const data = [...new Set([...(candidates.data ?? []), ...(parent ? [parent] : [])])];
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Add a parent flag to ${flagName}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <Stack>
          <Text size="sm">{flagName} is then enabled only where the parent is in the state chosen here.</Text>
          <Select
            label="Parent flag"
            placeholder="Search this project's flags"
            data={data}
            value={parent}
            onChange={(v) => {
              setParent(v);
              setVariants([]);
            }}
            searchable
            searchValue={search}
            onSearchChange={setSearch}
            nothingFoundMessage={candidates.isPending ? 'Searching…' : 'No flag found'}
            required
            data-autofocus
          />
          <Checkbox
            label="Parent must be on (off: the parent must be off)"
            checked={enabled}
            onChange={(e) => setEnabled(e.currentTarget.checked)}
          />
          {enabled && parentVariants.length > 0 && (
            <MultiSelect
              label="Parent variants (optional)"
              description="Any variant when none is picked."
              data={parentVariants}
              value={variants}
              onChange={setVariants}
            />
          )}
          <Group justify="end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending} disabled={!parent}>
              Add parent
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
