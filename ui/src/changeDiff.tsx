import { Box } from '@mantine/core';
import { diffLines } from 'diff';
import type { Flag } from './types';

/**
 * A proposed change shown as a diff of the configuration it touches (issue 47): what it was made
 * against (its snapshot, which is the current configuration while it has no conflict) or, for a
 * change that keeps none, the flag as it is now, against what it would be once applied.
 */

export interface Sides {
  before: unknown;
  after: unknown;
}

interface ChangeLike {
  action: string;
  payload?: unknown;
}

/** Everything of a payload but its snapshot. */
function proposedOf(payload: unknown): Record<string, unknown> {
  const { snapshot: _snapshot, ...rest } = (payload ?? {}) as Record<string, unknown>;
  return rest;
}

/**
 * The configuration before and after the change, or undefined for a kind that has no
 * configuration of its own to compare (a release plan step, a sort order): its payload is shown.
 * `flag`: the change's flag as it is now, where the change keeps no snapshot.
 */
export function sidesOf(change: ChangeLike, environment: string, flag?: Flag): Sides | undefined {
  const snapshot = (change.payload as { snapshot?: unknown } | undefined)?.snapshot;
  const proposed = proposedOf(change.payload);
  const env = flag?.environments.find((e) => e.name === environment);
  switch (change.action) {
    case 'updateEnabled':
      return env ? { before: { enabled: env.enabled }, after: { enabled: proposed.enabled } } : undefined;
    case 'addStrategy':
    case 'addDependency':
      return { before: null, after: proposed };
    case 'updateStrategy':
    case 'updateSegment': {
      if (snapshot === undefined) return undefined;
      const { id: _id, ...changed } = proposed;
      return { before: snapshot, after: { ...(snapshot as object), ...changed } };
    }
    case 'deleteStrategy':
    case 'deleteSegment':
      return snapshot === undefined ? undefined : { before: snapshot, after: null };
    case 'patchVariant':
    case 'updateFlagVariants':
      return snapshot === undefined ? undefined : { before: snapshot, after: proposed.variants };
    case 'archiveFeature':
      return { before: { archived: false }, after: { archived: true } };
    case 'deleteDependency': {
      if (!flag) return undefined;
      const parents = flag.dependencies ?? [];
      const parent = proposed.feature;
      return {
        before: parents,
        after: parent === undefined ? [] : parents.filter((d) => d.feature !== parent),
      };
    }
    default:
      return undefined;
  }
}

const text = (value: unknown) => (value === null ? '' : `${JSON.stringify(value, null, 2)}\n`);

/** The two sides as a line diff: removed lines struck through, added ones marked, the rest as context. */
export function ChangeDiff({ sides, label }: { sides: Sides; label: string }) {
  const parts = diffLines(text(sides.before), text(sides.after));
  return (
    <Box
      component="pre"
      aria-label={label}
      m={0}
      p="xs"
      style={{ fontSize: 12, overflowX: 'auto', background: 'var(--mantine-color-gray-0)' }}
    >
      {parts.map((part, i) => {
        const lines = part.value.replace(/\n$/, '').split('\n');
        const mark = part.added ? '+ ' : part.removed ? '- ' : '  ';
        const body = lines.map((line) => `${mark}${line}`).join('\n');
        const key = `${i}-${mark}`;
        if (part.added)
          return (
            <ins
              key={key}
              style={{ display: 'block', textDecoration: 'none', background: '#d3f9d8', color: '#0b3d16' }}
            >
              {body}
            </ins>
          );
        if (part.removed)
          return (
            <del
              key={key}
              style={{ display: 'block', textDecoration: 'none', background: '#ffe3e3', color: '#5c0a0a' }}
            >
              {body}
            </del>
          );
        return (
          <span key={key} style={{ display: 'block', color: '#343a40' }}>
            {body}
          </span>
        );
      })}
    </Box>
  );
}
