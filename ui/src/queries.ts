import { useQuery } from '@tanstack/react-query';
import { enc, get } from './api';
import type { ApiToken, ContextField, Environment, Flag, Project, Role, Segment, User } from './types';

/** One query key per API resource; mutations invalidate these. */
export const keys = {
  projects: ['projects'] as const,
  environments: ['environments'] as const,
  segments: ['segments'] as const,
  context: ['context'] as const,
  flags: (project: string) => ['flags', project] as const,
  flag: (project: string, name: string) => ['flag', project, name] as const,
  events: ['events'] as const,
  apiTokens: ['api-tokens'] as const,
  users: ['users'] as const,
  health: (project: string) => ['health', project] as const,
};

export const useProjects = () =>
  useQuery({
    queryKey: keys.projects,
    queryFn: async () => (await get<{ projects: Project[] }>('api/admin/projects')).projects,
  });

export const useEnvironments = () =>
  useQuery({
    queryKey: keys.environments,
    queryFn: async () =>
      (await get<{ environments: Environment[] }>('api/admin/environments')).environments
        .filter((e) => e.enabled)
        .sort((a, b) => a.sortOrder - b.sortOrder || a.name.localeCompare(b.name)),
    staleTime: 60_000,
  });

export const useSegments = () =>
  useQuery({
    queryKey: keys.segments,
    queryFn: async () => (await get<{ segments: Segment[] }>('api/admin/segments')).segments,
  });

export const useContextFields = () =>
  useQuery({
    queryKey: keys.context,
    queryFn: () => get<ContextField[]>('api/admin/context'),
    staleTime: 60_000,
  });

export const useFlag = (project: string, name: string) =>
  useQuery({
    queryKey: keys.flag(project, name),
    queryFn: () => get<Flag>(`api/admin/projects/${enc(project)}/features/${enc(name)}`),
  });

export const useApiTokens = () =>
  useQuery({
    queryKey: keys.apiTokens,
    queryFn: async () => (await get<{ tokens: ApiToken[] }>('api/admin/api-tokens')).tokens,
  });

export const useUsers = () =>
  useQuery({
    queryKey: keys.users,
    queryFn: () => get<{ users: User[]; rootRoles: Role[] }>('api/admin/user-admin'),
  });

export interface HealthReport {
  health: number;
  technicalDebt?: number;
  activeCount: number;
  staleCount: number;
  potentiallyStaleCount: number;
}

export const useHealthReport = (project: string) =>
  useQuery({
    queryKey: keys.health(project),
    queryFn: () => get<HealthReport>(`api/admin/projects/${enc(project)}/health-report`),
  });

export interface HealthHistory {
  projectId: string;
  days: { date: string; health: number; flags: number; stale: number; potentiallyStale: number }[];
}

/** Health per day (getProjectHealthHistory); under the health report's key, so it is refreshed with it. */
export const useHealthHistory = (project: string, days: number) =>
  useQuery({
    queryKey: [...keys.health(project), 'history', days],
    queryFn: () => get<HealthHistory>(`api/admin/projects/${enc(project)}/health-history?days=${days}`),
  });
