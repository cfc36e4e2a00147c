import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { get } from '../api';

/**
 * The permissions a custom role may hold, from `GET /api/admin/permissions` (the server's list,
 * src/features/roles/permissions.ts). `root`: only in custom root roles; `project`: in both kinds;
 * `environment`: project permissions limited to environments (`*` = all).
 */
export type PermissionScope = 'root' | 'project' | 'environment';

export interface PermissionInfo {
  name: string;
  label: string;
  scope: PermissionScope;
}

interface CatalogAnswer {
  permissions: { name: string; displayName: string; type: PermissionScope; category: string }[];
}

export interface PermissionCatalog {
  categories: { category: string; permissions: PermissionInfo[] }[];
  byName: Map<string, PermissionInfo>;
  isLoading: boolean;
  error: unknown;
}

/** The catalogue by category, in the server's order; empty while it loads. */
export function usePermissionCatalog(): PermissionCatalog {
  const answer = useQuery({
    queryKey: ['access', 'permissions'],
    queryFn: () => get<CatalogAnswer>('api/admin/permissions'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const data = answer.data;
  const built = useMemo(() => {
    const categories: PermissionCatalog['categories'] = [];
    const byName = new Map<string, PermissionInfo>();
    for (const p of data?.permissions ?? []) {
      const info = { name: p.name, label: p.displayName, scope: p.type };
      byName.set(p.name, info);
      const last = categories.at(-1);
      if (last?.category === p.category) last.permissions.push(info);
      else categories.push({ category: p.category, permissions: [info] });
    }
    return { categories, byName };
  }, [data]);
  return { ...built, isLoading: answer.isLoading, error: answer.error };
}
