import { createHash } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../platform/http/auth.js';
import type { Reads } from '../../platform/read-cache.js';
import { favoriteFlags } from '../flags/index.js';
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
 * One page of the flags matching the search, with the number of all matches: one statement, kept
 * in the read cache (docs/adr/0009) while nothing it shows has changed. The caller's favorites are
 * laid over the shared answer, unless they decide what it holds (`favoritesFirst`, `favorite`),
 * when the answer is the caller's own. The last hour's metric counts also move with the clock:
 * the hourly buckets counted change only when the clock passes a full hour, so a kept answer holds
 * until then. Lists repeat the same search (a project's flag list, a page reloaded, many people
 * looking at one list); a new query or filter costs the statement.
 */
export async function searchFeatures(
  deps: Deps,
  reads: Reads,
  query: SearchQuery,
  by: Principal | null,
): Promise<SearchResult> {
  const request = parseSearch(query);
  const caller = by?.kind === 'user' ? by.userId : null;
  const userId = request.favoritesFirst || request.favorite !== undefined ? caller : null;
  const now = deps.now().getTime();
  const key = `search\u0000${userId ?? ''}\u0000${JSON.stringify(request)}`;
  const [kept, favorites] = await Promise.all([
    reads.readTimed(
      key,
      now,
      async () => {
        const { total, features } = await searchFlags(deps.database.db, request, {
          userId,
          metricsSince: new Date(now - HOUR_MS),
        });
        const value: SearchResult = { features: features.map(toItem), total };
        return { value, from: now, until: Math.ceil(now / HOUR_MS) * HOUR_MS };
      },
      { bytes: (result) => 2048 * Math.max(1, result.features.length) },
    ),
    userId === null ? favoriteFlags(deps, reads, by) : undefined,
  ]);
  const result = kept.value;
  if (!favorites?.size || !result.features.some((f) => favorites.has(f.name))) return result;
  return {
    ...result,
    features: result.features.map((f) => (favorites.has(f.name) ? { ...f, favorite: true } : f)),
  };
}
