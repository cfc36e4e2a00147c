/**
 * The comparison dataset: generated from a seed (mulberry32), loaded into each server through its
 * admin API only (the endpoints both Flagship and Unleash 8.2 open source implement), so both hold
 * the same flags, strategies, segments and tags whatever their storage looks like.
 */

import type { ConstraintInput } from '../../src/features/strategies/index.js';
import { prng } from './engine-data.js';

/** Unleash open source has only this project (POST /api/admin/projects answers 404 there). */
export const PROJECT = 'default';
export const ENVIRONMENTS = ['development', 'production'] as const;

export interface Tag {
  type: string;
  value: string;
}
/** The constraint shape the admin API takes. */
export type Constraint = ConstraintInput;
export interface Segment {
  name: string;
  description: string;
  constraints: Constraint[];
}
export interface Variant {
  name: string;
  weight: number;
  weightType: 'variable';
  stickiness: string;
  payload?: { type: 'string'; value: string };
}
export interface Strategy {
  name: 'flexibleRollout';
  title: string;
  parameters: { rollout: string; stickiness: string; groupId: string };
  constraints: Constraint[];
  variants: Variant[];
  /** Segment names (each server assigns its own ids). */
  segments: string[];
}
export interface Flag {
  name: string;
  type: string;
  description: string;
  impressionData: boolean;
  tags: Tag[];
  environments: { name: (typeof ENVIRONMENTS)[number]; enabled: boolean; strategies: Strategy[] }[];
}
export interface Dataset {
  tags: Tag[];
  segments: Segment[];
  flags: Flag[];
}

const TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission'];

/**
 * `flags` flags in the default project, each with 1-3 flexibleRollout strategies per environment
 * (1-2 constraints on built-in context fields, a segment on 40 %, two strategy variants on half),
 * enabled in development (75 %) and production (50 %), 1-2 tags; `segments` segments, `tags` tags.
 * Strategy variants only: Unleash 8.2 refuses environment (flag) variants (403, deprecated).
 */
export function generateDataset(seed: number, flags: number, segments: number, tags: number): Dataset {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const users = (n: number) => [...new Set(Array.from({ length: n }, () => `u${int(60)}`))];
  const tagList: Tag[] = Array.from({ length: tags }, (_, i) => ({
    type: 'simple',
    value: `bench-tag-${i + 1}`,
  }));
  const segmentList: Segment[] = Array.from({ length: segments }, (_, i) => ({
    name: `bench-segment-${i + 1}`,
    description: 'Generated segment',
    constraints: [{ contextName: 'userId', operator: 'IN', values: users(10 + int(20)) }],
  }));
  const constraint = (): Constraint => {
    switch (int(5)) {
      case 0:
        return { contextName: 'userId', operator: 'IN', values: users(3 + int(10)) };
      case 1:
        return {
          contextName: 'appName',
          operator: 'STR_STARTS_WITH',
          values: pick([['web'], ['ios', 'android'], ['web', 'ios']]),
          caseInsensitive: rand() < 0.5,
        };
      case 2:
        return {
          contextName: 'userId',
          operator: 'STR_ENDS_WITH',
          values: [String(int(10))],
          inverted: rand() < 0.3,
        };
      case 3:
        return { contextName: 'sessionId', operator: 'NOT_IN', values: [`s${int(10)}`, `s${int(10)}`] };
      default: {
        const after = rand() < 0.5;
        // Far from now, so both servers (reading their own clocks) agree.
        return after
          ? { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2020-01-01T00:00:00.000Z' }
          : { contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2099-01-01T00:00:00.000Z' };
      }
    }
  };
  const strategy = (flag: string, k: number): Strategy => {
    const constraints = Array.from({ length: 1 + int(2) }, constraint);
    return {
      name: 'flexibleRollout',
      title: `Rollout ${k + 1}`,
      parameters: {
        rollout: String(pick([10, 25, 50, 75, 100])),
        stickiness: pick(['default', 'userId']),
        groupId: flag,
      },
      constraints,
      variants:
        rand() < 0.5
          ? [
              {
                name: 'blue',
                weight: 500,
                weightType: 'variable',
                stickiness: 'default',
                payload: { type: 'string', value: 'blue' },
              },
              { name: 'green', weight: 500, weightType: 'variable', stickiness: 'default' },
            ]
          : [],
      segments: segments > 0 && rand() < 0.4 ? [pick(segmentList).name] : [],
    };
  };
  const flagList: Flag[] = Array.from({ length: flags }, (_, i) => {
    const name = `bench-flag-${i + 1}`;
    const first = pick(tagList);
    const second = pick(tagList);
    return {
      name,
      type: pick(TYPES),
      description: `Generated flag ${i + 1}`,
      impressionData: rand() < 0.2,
      tags: tags === 0 ? [] : first === second || rand() < 0.5 ? [first] : [first, second],
      environments: ENVIRONMENTS.map((env) => ({
        name: env,
        enabled: rand() < (env === 'development' ? 0.75 : 0.5),
        strategies: Array.from({ length: 1 + int(3) }, (_, k) => strategy(name, k)),
      })),
    };
  });
  return { tags: tagList, segments: segmentList, flags: flagList };
}

export interface ApiResponse {
  status: number;
  body: string;
  headers: Headers;
  json: <T = unknown>() => T;
}

/** A small admin/client API client for one server. */
export class Api {
  requests = 0;
  constructor(
    readonly base: string,
    readonly token: string,
  ) {}

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse> {
    this.requests++;
    const res = await fetch(this.base + path, {
      method,
      headers: {
        authorization: this.token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text, headers: res.headers, json: <T>() => JSON.parse(text) as T };
  }

  /** Like call, but a status outside 2xx throws with the response body. */
  async ok(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const res = await this.call(method, path, body);
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${method} ${this.base}${path} answered ${res.status}: ${res.body.slice(0, 500)}`);
    }
    return res;
  }
}

/** Runs fn over items with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/**
 * Loads the dataset through the admin API: tags, segments (ids as the server assigns them), then
 * per flag (`concurrency` flags at a time): create with its tags, add the strategies of each
 * environment in order, switch the enabled environments on.
 */
export async function loadThroughAdminApi(api: Api, data: Dataset, concurrency = 4): Promise<void> {
  for (const tag of data.tags) await api.ok('POST', '/api/admin/tags', tag);
  const segmentIds = new Map<string, number>();
  for (const segment of data.segments) {
    const res = await api.ok('POST', '/api/admin/segments', segment);
    segmentIds.set(segment.name, res.json<{ id: number }>().id);
  }
  const features = `/api/admin/projects/${PROJECT}/features`;
  await pool(data.flags, concurrency, async (flag) => {
    await api.ok('POST', features, {
      name: flag.name,
      type: flag.type,
      description: flag.description,
      impressionData: flag.impressionData,
      tags: flag.tags,
    });
    for (const env of flag.environments) {
      const base = `${features}/${flag.name}/environments/${env.name}`;
      for (const [sortOrder, s] of env.strategies.entries()) {
        await api.ok('POST', `${base}/strategies`, {
          ...s,
          sortOrder,
          segments: s.segments.map((name) => segmentIds.get(name)),
        });
      }
      if (env.enabled) await api.ok('POST', `${base}/on`);
    }
  });
}
