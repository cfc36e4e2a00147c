import type { FlagRow } from '../flag-rows/index.js';
import type { Plan } from '../shapes/index.js';
import { avatarUrl } from '../users/index.js';
import type { CollaboratorRow } from './collaborators.store.js';
import type { Flag } from './flags.schemas.js';
import type { FlagViewRow, NewFlagEnvironment } from './flags.store.js';

// Timestamps inside jsonb aggregates arrive as PostgreSQL text; the API speaks ISO 8601.
const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

/** Maps the one-query flag view to the API's Flag shape. */
export function toFlag(row: FlagViewRow, favorite: boolean): Flag {
  return {
    name: row.name,
    type: row.type,
    description: row.description,
    project: row.project,
    archived: row.archived_at !== null,
    stale: row.stale,
    potentiallyStale: !row.stale && row.potentially_stale,
    favorite,
    impressionData: row.impression_data,
    createdAt: iso(row.created_at),
    archivedAt: iso(row.archived_at),
    lastSeenAt: iso(row.last_seen_at),
    createdBy: { id: row.created_by_user_id, name: row.created_by_name ?? 'unknown' },
    environments: row.environments.map((env) => {
      const strategies = env.strategies.map((s) => ({
        id: s.id,
        name: s.strategy_name,
        title: s.title,
        disabled: s.disabled,
        featureName: row.name,
        sortOrder: s.sort_order,
        segments: s.segments,
        constraints:
          s.constraints as unknown as Flag['environments'][number]['strategies'][number]['constraints'],
        variants: s.variants as unknown as Flag['environments'][number]['strategies'][number]['variants'],
        parameters: s.parameters as unknown as Record<string, string>,
      }));
      const variants = env.variants as unknown as Flag['environments'][number]['variants'];
      return {
        name: env.environment,
        featureName: row.name,
        environment: env.environment,
        type: env.type,
        enabled: env.enabled,
        sortOrder: env.sort_order,
        variantCount: variants.length,
        strategies,
        variants,
        lastSeenAt: iso(env.last_seen_at),
        hasStrategies: strategies.length > 0,
        hasEnabledStrategies: strategies.some((s) => !s.disabled),
      };
    }),
    tags: row.tags,
    children: row.children.map((c) => c.child),
    dependencies: row.dependencies.map((d) => ({
      feature: d.parent,
      enabled: d.enabled,
      ...(d.variants ? { variants: d.variants } : {}),
    })),
    lifecycle: {
      stage: row.lifecycle?.stage ?? 'initial',
      enteredStageAt: iso(row.lifecycle?.created_at ?? row.created_at) as string,
    },
    links: row.links.map((l) => ({ id: l.id, url: l.url, title: l.title, feature: row.name })),
  };
}

/**
 * A flag just created: nothing is configured yet, so the response is built from what was
 * inserted (no second read of the flag in the creating transaction).
 */
export function newFlag(
  row: FlagRow & { environments: NewFlagEnvironment[] },
  tags: { type: string; value: string }[],
  createdBy: { id: number; name: string },
): Flag {
  const createdAt = row.createdAt.toISOString();
  return {
    name: row.name,
    type: row.type,
    description: row.description,
    project: row.project,
    archived: false,
    stale: row.stale,
    potentiallyStale: false,
    favorite: false,
    impressionData: row.impressionData,
    createdAt,
    archivedAt: null,
    lastSeenAt: null,
    createdBy,
    environments: row.environments.map((env) => ({
      name: env.environment,
      featureName: row.name,
      environment: env.environment,
      type: env.type,
      enabled: false,
      sortOrder: env.sortOrder,
      variantCount: 0,
      strategies: [],
      variants: [],
      lastSeenAt: null,
      hasStrategies: false,
      hasEnabledStrategies: false,
    })),
    tags: [...new Map(tags.map((t) => [`${t.type}\u0000${t.value}`, t])).values()]
      .map((t) => ({ type: t.type, value: t.value }))
      .sort((a, b) => (a.type === b.type ? (a.value < b.value ? -1 : 1) : a.type < b.type ? -1 : 1)),
    children: [],
    dependencies: [],
    lifecycle: { stage: 'initial', enteredStageAt: createdAt },
    links: [],
  };
}

/** Unleash's `collaborators` of a flag: name, else username, else email, else `unknown`. */
export function toCollaborators(rows: CollaboratorRow[]): NonNullable<Flag['collaborators']> {
  return {
    users: rows.map((u) => ({
      id: u.id,
      name: u.name ?? u.username ?? u.email ?? 'unknown',
      imageUrl: avatarUrl(u.email ?? u.username ?? String(u.id)),
    })),
  };
}

/** The flag with each environment's release plans (Unleash's `environments[].releasePlans`), where it has any. */
export function withPlans(flag: Flag, plans: Plan[]): Flag {
  if (plans.length === 0) return flag;
  return {
    ...flag,
    environments: flag.environments.map((env) => {
      const here = plans.filter((p) => p.environment === env.name);
      return here.length > 0 ? { ...env, releasePlans: here } : env;
    }),
  };
}
