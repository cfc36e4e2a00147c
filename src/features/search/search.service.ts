import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import { parseSearch, type SearchQuery } from './search.query.js';
import type { SearchItem, SearchResult } from './search.schemas.js';
import { type SearchItemRow, searchFlags } from './search.store.js';

const HOUR_MS = 3_600_000;

// Timestamps inside JSON arrive as PostgreSQL text; the API speaks ISO 8601.
const iso = (value: string | null) => (value ? new Date(value).toISOString() : null);

/** Gravatar from the email, else the username, else the creator's name (as the users slice does). */
function avatar(identity: string): string {
  const hash = createHash('sha256').update(identity.trim().toLowerCase()).digest('hex');
  return `https://gravatar.com/avatar/${hash}?s=42&d=retro&r=g`;
}

function toItem(row: SearchItemRow): SearchItem {
  const by = row.createdBy;
  const name = by.name ?? 'unknown';
  return {
    name: row.name,
    type: row.type,
    description: row.description,
    dependencyType: row.dependencyType,
    project: row.project,
    stale: row.stale,
    potentiallyStale: row.potentiallyStale,
    favorite: row.favorite,
    impressionData: row.impressionData,
    createdAt: iso(row.createdAt),
    archivedAt: iso(row.archivedAt),
    createdBy: { id: by.id, name, imageUrl: avatar(by.email ?? by.username ?? name) },
    environments: row.environments.map((e) => ({
      name: e.name,
      enabled: e.enabled,
      type: e.type,
      sortOrder: e.sortOrder,
      variantCount: e.variantCount,
      lastSeenAt: iso(e.lastSeenAt),
      hasStrategies: e.hasStrategies,
      hasEnabledStrategies: e.hasEnabledStrategies,
      yes: Number(e.yes),
      no: Number(e.no),
      changeRequestIds: [],
    })),
    segments: row.segments,
    tags: row.tags,
    lifecycle: row.lifecycle
      ? {
          stage: row.lifecycle.stage,
          status: row.lifecycle.status,
          enteredStageAt: iso(row.lifecycle.enteredStageAt) as string,
        }
      : { stage: 'initial', status: null, enteredStageAt: iso(row.createdAt) as string },
  };
}

/**
 * One page of the flags matching the search, with the number of all matches. Read straight from
 * the database (one statement), not from the read cache: the combinations of parameters are
 * endless and each answer is cheap.
 */
export async function searchFeatures(
  deps: Deps,
  query: SearchQuery,
  by: Principal | null,
): Promise<SearchResult> {
  const request = parseSearch(query);
  const { total, features } = await searchFlags(deps.database.db, request, {
    userId: by?.kind === 'user' ? by.userId : null,
    metricsSince: new Date(deps.now().getTime() - HOUR_MS),
  });
  return { features: features.map(toItem), total };
}
