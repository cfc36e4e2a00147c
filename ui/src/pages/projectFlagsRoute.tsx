import { type ComponentType, lazy, useState } from 'react';
import type { LoaderFunctionArgs, ShouldRevalidateFunctionArgs } from 'react-router';
import { get } from '../api';

/**
 * The route of a project's flag list (`projects/:projectId`, router.tsx), in the initial bundle and
 * small on purpose. Its loader starts the page's chunk and the list's first search as soon as the
 * route matches, while the shell checks the session, instead of one after the other (session, then
 * chunk, then search: most of the time to the first rows of a 10,000-flag project, see
 * bench/ui-first-rows.ts).
 */

/** Rows per page of a project's flag list. */
export const PAGE_SIZE = 200;

/** The list's search, sort and page, as the URL holds them. */
export interface FlagListView {
  query: string;
  sortBy: string;
  sortOrder: 'asc' | 'desc';
  page: number;
}

export function flagListView(params: URLSearchParams): FlagListView {
  return {
    query: params.get('query') ?? '',
    sortBy: params.get('sortBy') ?? 'createdAt',
    sortOrder: params.get('sortOrder') === 'desc' ? 'desc' : 'asc',
    page: Math.max(1, Number(params.get('page')) || 1),
  };
}

/** The search request for one page of the list. */
export function searchPath(projectId: string, view: FlagListView): string {
  const qs = new URLSearchParams({
    project: `IS:${projectId}`,
    sortBy: view.sortBy,
    sortOrder: view.sortOrder,
    offset: String((view.page - 1) * PAGE_SIZE),
    limit: String(PAGE_SIZE),
  });
  if (view.query) qs.set('query', view.query);
  return `api/admin/search/features?${qs}`;
}

/** The page, once its chunk is here. */
let loaded: ComponentType | undefined;
const loadPage = () =>
  import('./ProjectFlags').then((m) => {
    loaded = m.default;
    return m;
  });
const LazyPage = lazy(loadPage);

/**
 * The page: rendered at once when the loader brought its chunk (React.lazy would suspend for a
 * moment even then, and React reveals a suspended boundary at the earliest 300 ms after its
 * fallback appeared: about 230 ms lost before the first rows); lazy when it is rendered without it.
 */
export function ProjectFlagsPage() {
  // Chosen once per mount: switching component types later would remount the page.
  const [Page] = useState(() => loaded ?? LazyPage);
  return <Page />;
}

/** A read the loader started and the page has not taken yet (at most one). */
let started: { path: string; at: number; answer: Promise<unknown> } | undefined;

/** A prefetched answer older than this is not used (the page asks again). */
const FRESH_MS = 5_000;

/**
 * The route's loader: starts the first search (not waited for) and resolves once the page's chunk
 * is here, so that the page renders without suspending. Meanwhile the shell renders and checks the
 * session (the route's hydrateFallbackElement stands in for the page on a first load; on a link
 * the previous page stays).
 */
export async function prefetchProjectFlags({ params, request }: LoaderFunctionArgs): Promise<null> {
  const path = searchPath(params.projectId ?? '', flagListView(new URL(request.url).searchParams));
  const answer = get(path);
  // Failures are the page's to show when it asks (no session: the shell signs in first).
  answer.catch(() => {});
  started = { path, at: Date.now(), answer };
  // A chunk that fails to load is React.lazy's to retry and report when the page renders.
  await loadPage().catch(() => {});
  return null;
}

/** The loader runs on entering a project's list only: another page, search or sort is the page's read. */
export const prefetchOnEnter = ({ currentUrl, nextUrl }: ShouldRevalidateFunctionArgs) =>
  currentUrl.pathname !== nextUrl.pathname;

/** The loader's read of `path`, once, if it is recent; else undefined (the caller reads itself). */
export function takePrefetched<T>(path: string): Promise<T> | undefined {
  const hit = started;
  if (hit?.path !== path) return undefined;
  started = undefined;
  return Date.now() - hit.at < FRESH_MS ? (hit.answer as Promise<T>) : undefined;
}

/** Drops a read not taken yet: after a write it may show the state before it. */
export function forgetPrefetched() {
  started = undefined;
}
