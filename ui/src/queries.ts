import { useQuery } from '@tanstack/react-query';
import { enc, get } from './api';
import type { ContextField, Environment, Flag, Project, Segment } from './types';

/** One query key per API resource; mutations invalidate these. */
export const keys = {
  projects: ['projects'] as const,
  environments: ['environments'] as const,
  segments: ['segments'] as const,
  context: ['context'] as const,
  flags: (project: string) => ['flags', project] as const,
  flag: (project: string, name: string) => ['flag', project, name] as const,
  events: ['events'] as const,
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
