import { useQuery, useQueryClient } from '@tanstack/react-query';
import { enc, get, post } from './api';
import { useCan } from './session';

/** A project environment's change request setting (`GET …/change-requests/config`). */
export interface ChangeRequestConfig {
  environment: string;
  type: string;
  changeRequestEnabled: boolean;
  requiredApprovals: number | null;
}

export interface Person {
  id?: number;
  username: string | null;
  imageUrl: string | null;
}

export interface ChangeView {
  id: number;
  action: string;
  payload?: unknown;
  conflict?: string;
  createdBy: Person;
  createdAt: string;
}

export interface ChangeRequest {
  id: number;
  title: string;
  project: string;
  environment: string;
  state: 'Draft' | 'In review' | 'Approved' | 'Scheduled' | 'Applied' | 'Cancelled' | 'Rejected';
  minApprovals: number;
  createdBy: Person;
  createdAt: string;
  features: { name: string; changes: ChangeView[] }[];
  segments: (ChangeView & { name: string })[];
  approvals: { createdBy: Person; createdAt: string }[];
  rejections: { createdBy: Person; createdAt: string }[];
  comments: { id: number; text: string; createdBy: Person; createdAt: string }[];
  reviewers: Person[];
  stateTimestamps: Record<string, string>;
  schedule?: { scheduledAt: string; status: 'pending' | 'failed' | 'suspended'; reason?: string };
}

export const crKeys = {
  config: (project: string) => ['change-request-config', project] as const,
  list: (project: string) => ['change-requests', project] as const,
  one: (project: string, id: number) => ['change-request', project, id] as const,
};

export const useChangeRequestConfig = (project: string) =>
  useQuery({
    queryKey: crKeys.config(project),
    queryFn: () => get<ChangeRequestConfig[]>(`api/admin/projects/${enc(project)}/change-requests/config`),
  });

/** The project's open change requests (the caller's draft among them). */
export const usePendingChangeRequests = (project: string) =>
  useQuery({
    queryKey: [...crKeys.list(project), 'pending'],
    queryFn: () => get<ChangeRequest[]>(`api/admin/projects/${enc(project)}/change-requests/pending`),
  });

/**
 * Whether changes in the environment go into a change request for the signed-in user: it requires
 * them and the user may not skip them (the service's rule, change-requests.guard.ts).
 */
export function useNeedsChangeRequest(project: string) {
  const config = useChangeRequestConfig(project);
  const can = useCan();
  return (environment: string) =>
    Boolean(config.data?.find((c) => c.environment === environment)?.changeRequestEnabled) &&
    !can('SKIP_CHANGE_REQUEST', project, environment);
}

/**
 * Where a change of the whole flag (a dependency) goes for the signed-in user: the first environment
 * of the project that requires change requests they may not skip (as Unleash's UI picks one), or
 * undefined when the change may be made directly.
 */
export function useDraftEnvironment(project: string): string | undefined {
  const config = useChangeRequestConfig(project);
  const can = useCan();
  return config.data?.find(
    (c) => c.changeRequestEnabled && !can('SKIP_CHANGE_REQUEST', project, c.environment),
  )?.environment;
}

/** Adds a change to the caller's draft for the environment; answers the draft. */
export function useProposeChange(project: string) {
  const client = useQueryClient();
  return async (environment: string, change: { feature?: string; action: string; payload?: unknown }) => {
    const draft = await post<ChangeRequest>(
      `api/admin/projects/${enc(project)}/environments/${enc(environment)}/change-requests`,
      change,
    );
    await client.invalidateQueries({ queryKey: crKeys.list(project) });
    return draft;
  };
}

/** How many changes a request holds. */
export const changeCount = (r: ChangeRequest) =>
  r.features.reduce((n, f) => n + f.changes.length, 0) + r.segments.length;
