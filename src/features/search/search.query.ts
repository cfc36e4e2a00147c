import { likeLiteral } from '../../platform/db/index.js';
import { invalidField } from '../../platform/http/errors.js';

/**
 * The flag-search grammar (Unleash's): every filter parameter is `OPERATOR:value[,value…]`. This
 * module turns the raw query string into a checked request, or a 400 naming the parameter; it
 * knows no SQL (search.store.ts does).
 */

export const STATES = ['active', 'stale', 'potentially-stale'] as const;
export type State = (typeof STATES)[number];
export const STAGES = ['initial', 'pre-live', 'live', 'completed', 'archived'] as const;
export type Stage = (typeof STAGES)[number];
export const SORT_FIELDS = ['createdAt', 'name', 'type', 'stale', 'project', 'lastSeenAt'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

const IS_OPERATORS = ['IS', 'IS_NOT', 'IS_ANY_OF', 'IS_NONE_OF'] as const;
const INCLUDE_OPERATORS = [
  'INCLUDE',
  'DO_NOT_INCLUDE',
  'INCLUDE_ALL_OF',
  'INCLUDE_ANY_OF',
  'EXCLUDE_IF_ANY_OF',
  'EXCLUDE_ALL',
] as const;
const DATE_OPERATORS = ['IS_BEFORE', 'IS_ON_OR_AFTER'] as const;

/** `IS`/`IS_ANY_OF` keep flags with one of the values; `IS_NOT`/`IS_NONE_OF` keep the others. */
export interface IsFilter<T> {
  include: boolean;
  values: T[];
}

/** any: has one of them; none: has none; all: has every one; notAll: lacks at least one. */
export type SetMatch = 'any' | 'none' | 'all' | 'notAll';
export interface SetFilter<T> {
  match: SetMatch;
  values: T[];
}

export interface DateFilter {
  before: boolean;
  /** Midnight UTC of the given day. */
  date: Date;
}

export type Sort = { by: SortField } | { by: 'environment'; environment: string };

export interface SearchRequest {
  /** LIKE patterns (`%term%`, the user's wildcards escaped), OR-ed; empty = no text filter. */
  patterns: string[];
  project?: IsFilter<string>;
  type?: IsFilter<string>;
  state?: IsFilter<State>;
  lifecycle?: IsFilter<Stage>;
  createdBy?: IsFilter<number>;
  tag?: SetFilter<{ type: string; value: string }>;
  segment?: SetFilter<string>;
  /** Flags with any of these environment states. */
  status?: { environment: string; enabled: boolean }[];
  createdAt?: DateFilter;
  lastSeenAt?: DateFilter;
  /** Only the caller's favorites (true) or only the others (false). */
  favorite?: boolean;
  favoritesFirst: boolean;
  archived: boolean;
  sort: Sort;
  descending: boolean;
  offset: number;
  limit: number;
}

/** The query string as validated by the route schema (types checked, grammar not yet). */
export interface SearchQuery {
  query?: string;
  project?: string;
  type?: string;
  state?: string;
  lifecycle?: string;
  createdBy?: string;
  tag?: string;
  segment?: string;
  status?: string | string[];
  createdAt?: string;
  lastSeenAt?: string;
  favorite?: string;
  favoritesFirst?: string;
  archived?: string;
  sortBy?: string;
  sortOrder?: string;
  offset?: string;
  limit?: string;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

const bad = (param: string, message: string) => invalidField(`/query/${param}`, message);

/** Comma-separated items, trimmed, empties dropped, duplicates removed (first kept). */
const items = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== ''),
  ),
];

function operatorAndValues<Op extends string>(
  param: string,
  raw: string,
  operators: readonly Op[],
): { op: Op; values: string[] } {
  const colon = raw.indexOf(':');
  const op = raw.slice(0, colon).trim() as Op;
  if (colon < 0 || !operators.includes(op)) {
    throw bad(
      param,
      `\`${param}\` must be an operator (${operators.join(', ')}), a colon and values; got "${raw}".`,
    );
  }
  const values = items(raw.slice(colon + 1));
  if (values.length === 0) throw bad(param, `\`${param}\` needs at least one value after "${op}:".`);
  return { op, values };
}

function isFilter<T extends string | number>(
  param: string,
  raw: string | undefined,
  convert: (value: string) => T | undefined,
  expected: string,
): IsFilter<T> | undefined {
  if (raw === undefined) return undefined;
  const { op, values } = operatorAndValues(param, raw, IS_OPERATORS);
  const converted = values.map((v) => {
    const c = convert(v);
    if (c === undefined) throw bad(param, `\`${param}\`: "${v}" is not ${expected}.`);
    return c;
  });
  return { include: op === 'IS' || op === 'IS_ANY_OF', values: [...new Set(converted)] };
}

function setFilter<T>(
  param: string,
  raw: string | undefined,
  convert: (value: string) => T,
): SetFilter<T> | undefined {
  if (raw === undefined) return undefined;
  const { op, values } = operatorAndValues(param, raw, INCLUDE_OPERATORS);
  const match: SetMatch =
    op === 'INCLUDE' || op === 'INCLUDE_ANY_OF'
      ? 'any'
      : op === 'DO_NOT_INCLUDE' || op === 'EXCLUDE_IF_ANY_OF'
        ? 'none'
        : op === 'INCLUDE_ALL_OF'
          ? 'all'
          : 'notAll';
  return { match, values: values.map(convert) };
}

function dateFilter(param: string, raw: string | undefined): DateFilter | undefined {
  if (raw === undefined) return undefined;
  const { op, values } = operatorAndValues(param, raw, DATE_OPERATORS);
  const text = values.length === 1 ? (values[0] as string) : '';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!m || !date || date.toISOString().slice(0, 10) !== text) {
    throw bad(param, `\`${param}\` needs one date as YYYY-MM-DD after "${op}:"; got "${raw}".`);
  }
  return { before: op === 'IS_BEFORE', date };
}

const oneOf =
  <T extends string>(allowed: readonly T[]) =>
  (v: string) =>
    allowed.includes(v as T) ? (v as T) : undefined;

function integer(v: string): number | undefined {
  if (!/^-?\d{1,10}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

function tagItem(v: string): { type: string; value: string } {
  const colon = v.indexOf(':');
  const type = v.slice(0, colon).trim();
  const value = v.slice(colon + 1).trim();
  if (colon < 0 || type === '' || value === '') {
    throw bad('tag', `\`tag\` values are type:value; got "${v}".`);
  }
  return { type, value };
}

function statusFilter(raw: string | string[] | undefined) {
  if (raw === undefined) return undefined;
  const entries = (Array.isArray(raw) ? raw : [raw]).flatMap(items);
  if (entries.length === 0) throw bad('status', '`status` needs at least one environment:enabled|disabled.');
  return entries.map((entry) => {
    const colon = entry.lastIndexOf(':');
    const environment = entry.slice(0, colon).trim();
    const state = entry.slice(colon + 1).trim();
    if (colon < 0 || environment === '' || (state !== 'enabled' && state !== 'disabled')) {
      throw bad(
        'status',
        `\`status\` entries are environment:enabled or environment:disabled; got "${entry}".`,
      );
    }
    return { environment, enabled: state === 'enabled' };
  });
}

function sortFrom(raw: string | undefined): Sort {
  if (raw === undefined || raw === '') return { by: 'createdAt' };
  if (raw.startsWith('environment:')) {
    const environment = raw.slice('environment:'.length).trim();
    if (environment === '') throw bad('sortBy', '`sortBy=environment:<name>` needs an environment name.');
    return { by: 'environment', environment };
  }
  if (!SORT_FIELDS.includes(raw as SortField)) {
    throw bad(
      'sortBy',
      `\`sortBy\` must be one of ${SORT_FIELDS.join(', ')} or environment:<name>; got "${raw}".`,
    );
  }
  return { by: raw as SortField };
}

function favoriteFilter(raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  const { values } = operatorAndValues('favorite', raw, ['IS', 'IS_ANY_OF'] as const);
  const flags = values.map((v) => {
    if (v !== 'true' && v !== 'false')
      throw bad('favorite', `\`favorite\` values are true or false; got "${v}".`);
    return v === 'true';
  });
  // Both values: every flag, as no filter.
  return flags.length === 1 ? flags[0] : undefined;
}

function archivedFrom(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  if (raw !== 'IS:true' && raw !== 'IS:false') {
    throw bad('archived', `\`archived\` must be IS:true or IS:false; got "${raw}".`);
  }
  return raw === 'IS:true';
}

const MAX_OFFSET = 2147483647;

/** A whole number in [min, max] written in decimal digits; absent = the default. */
function count(param: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!(n >= min && n <= max))
    throw bad(param, `\`${param}\` must be an integer from ${min} to ${max}; got "${raw}".`);
  return n;
}

function oneWord(param: string, raw: string | undefined, allowed: string[]): string | undefined {
  if (raw === undefined || allowed.includes(raw)) return raw;
  throw bad(param, `\`${param}\` must be ${allowed.join(' or ')}; got "${raw}".`);
}

/** Checks the grammar of every parameter; the first bad one is the 400. */
export function parseSearch(q: SearchQuery): SearchRequest {
  const limit = count('limit', q.limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
  const offset = count('offset', q.offset, 0, 0, MAX_OFFSET);
  const request: SearchRequest = {
    patterns: items(q.query ?? '').map((term) => `%${likeLiteral(term)}%`),
    favoritesFirst: oneWord('favoritesFirst', q.favoritesFirst, ['true', 'false']) === 'true',
    archived: archivedFrom(q.archived),
    sort: sortFrom(q.sortBy),
    descending: oneWord('sortOrder', q.sortOrder, ['asc', 'desc']) === 'desc',
    offset,
    limit,
  };
  const project = isFilter('project', q.project, (v) => v, 'a project id');
  const type = isFilter('type', q.type, (v) => v, 'a flag type');
  const state = isFilter('state', q.state, oneOf(STATES), `a state (${STATES.join(', ')})`);
  const lifecycle = isFilter(
    'lifecycle',
    q.lifecycle,
    oneOf(STAGES),
    `a lifecycle stage (${STAGES.join(', ')})`,
  );
  const createdBy = isFilter('createdBy', q.createdBy, integer, 'a user id (an integer)');
  const tag = setFilter('tag', q.tag, tagItem);
  const segment = setFilter('segment', q.segment, (v) => v);
  const status = statusFilter(q.status);
  const createdAt = dateFilter('createdAt', q.createdAt);
  const lastSeenAt = dateFilter('lastSeenAt', q.lastSeenAt);
  const favorite = favoriteFilter(q.favorite);
  if (tag) {
    const seen = new Map(tag.values.map((t) => [`${t.type}\u0000${t.value}`, t]));
    tag.values = [...seen.values()];
  }
  if (segment) segment.values = [...new Set(segment.values)];
  return {
    ...request,
    ...(project && { project }),
    ...(type && { type }),
    ...(state && { state }),
    ...(lifecycle && { lifecycle }),
    ...(createdBy && { createdBy }),
    ...(tag && { tag }),
    ...(segment && { segment }),
    ...(status && { status }),
    ...(createdAt && { createdAt }),
    ...(lastSeenAt && { lastSeenAt }),
    ...(favorite !== undefined && { favorite }),
  };
}
