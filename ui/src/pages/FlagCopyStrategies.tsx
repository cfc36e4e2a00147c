import { Button, Group, Menu, Modal, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { enc, notifyDone, post } from '../api';
import { MutationError } from '../dialogs';
import { useCan } from '../session';
import type { FlagEnvironment, Strategy } from '../types';

/**
 * What a new strategy that copies `s` sends (the create body takes no ids, no flag name and no
 * sort order: copies go after the target's own strategies, in the source's order).
 */
export function copyBody(s: Strategy) {
  return {
    name: s.name,
    title: s.title ?? null,
    disabled: s.disabled ?? false,
    parameters: { ...(s.parameters ?? {}) },
    constraints: s.constraints.map((c) => ({
      contextName: c.contextName,
      operator: c.operator,
      ...(c.inverted !== undefined && { inverted: c.inverted }),
      ...(c.caseInsensitive !== undefined && { caseInsensitive: c.caseInsensitive }),
      ...(c.values !== undefined && { values: [...c.values] }),
      ...(c.value !== undefined && { value: c.value }),
    })),
    segments: [...(s.segments ?? [])],
    variants: (s.variants ?? []).map((v) => ({
      name: v.name,
      weight: v.weight,
      weightType: v.weightType ?? 'variable',
      stickiness: v.stickiness ?? 'default',
      ...(v.payload && { payload: { type: v.payload.type, value: v.payload.value } }),
    })),
  };
}

const strategies = (n: number) => `${n} ${n === 1 ? 'strategy' : 'strategies'}`;

/**
 * "Copy to…" on an environment's strategy list: a menu of the other environments where the user
 * may add strategies, then a confirmation; each strategy is added to the target as the strategy
 * form adds one. Nothing is shown when there is nothing to copy or nowhere the user may copy to.
 */
export function CopyStrategies(props: {
  projectId: string;
  flagName: string;
  env: FlagEnvironment;
  environments: FlagEnvironment[];
  refresh: () => Promise<unknown>;
}) {
  const { projectId, flagName, env, environments, refresh } = props;
  const can = useCan();
  const [target, setTarget] = useState<FlagEnvironment | null>(null);
  // How many went in before a copy failed part way.
  const [copiedBeforeError, setCopiedBeforeError] = useState(0);
  const source = [...env.strategies].sort((a, b) => (a.sortOrder ?? 0) - (b.sortOrder ?? 0));
  const flagPath = `api/admin/projects/${enc(projectId)}/features/${enc(flagName)}`;
  const copy = useMutation({
    // `from`: the first strategy to copy (a retry after a failure part way goes on from there).
    mutationFn: async ({ to, from }: { to: FlagEnvironment; from: number }) => {
      let copied = from;
      try {
        for (const s of source.slice(from)) {
          await post(`${flagPath}/environments/${enc(to.name)}/strategies`, copyBody(s));
          copied++;
        }
      } catch (error) {
        setCopiedBeforeError(copied);
        throw error;
      }
      return copied;
    },
    onSuccess: (copied, { to }) => {
      notifyDone(`Copied ${strategies(copied)} from ${env.name} to ${to.name}.`);
      setTarget(null);
    },
    onSettled: refresh,
  });
  const targets = environments.filter(
    (e) => e.name !== env.name && can('CREATE_FEATURE_STRATEGY', projectId, e.name),
  );
  if (source.length === 0 || targets.length === 0) return null;
  const close = () => {
    setTarget(null);
    setCopiedBeforeError(0);
    copy.reset();
  };
  const remaining = source.length - copiedBeforeError;
  return (
    <>
      <Menu position="bottom-start">
        <Menu.Target>
          <Button size="xs" variant="default">
            Copy to…
          </Button>
        </Menu.Target>
        <Menu.Dropdown aria-label={`Copy strategies of ${env.name} to`}>
          {targets.map((e) => (
            <Menu.Item key={e.name} onClick={() => setTarget(e)}>
              {e.name}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
      {target && (
        <Modal
          opened
          onClose={close}
          title={`Copy strategies to ${target.name}`}
          closeButtonProps={{ 'aria-label': 'Close' }}
        >
          <Stack>
            <Text>
              {strategies(source.length)} of {env.name} will be added to {target.name}
              {target.strategies.length > 0
                ? `; the ${strategies(target.strategies.length)} already there ${target.strategies.length === 1 ? 'is' : 'are'} kept.`
                : '.'}
            </Text>
            {copiedBeforeError > 0 && (
              <Text>
                {strategies(copiedBeforeError)} of {source.length} {copiedBeforeError === 1 ? 'was' : 'were'}{' '}
                copied before the error; copying again goes on with the other {strategies(remaining)}.
              </Text>
            )}
            <MutationError error={copy.error} />
            <Group justify="end">
              <Button variant="default" onClick={close} data-autofocus>
                Cancel
              </Button>
              <Button
                loading={copy.isPending}
                onClick={() => copy.mutate({ to: target, from: copiedBeforeError })}
              >
                {copiedBeforeError > 0
                  ? `Copy the other ${strategies(remaining)}`
                  : `Copy ${strategies(source.length)}`}
              </Button>
            </Group>
          </Stack>
        </Modal>
      )}
    </>
  );
}
