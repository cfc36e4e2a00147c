import { useQuery } from '@tanstack/react-query';
import { ApiError, get } from './api';
import type { Grant, Me } from './types';

export const meKey = ['me'] as const;

/** The signed-in caller, or null when there is no (valid) session. */
export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: async (): Promise<Me | null> => {
      try {
        return await get<Me>('api/admin/user');
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

/** The server's rule (platform/http/auth.ts `allows`): ADMIN or the permission, on the scope. */
export function allows(grants: Grant[], permission: string, project?: string, environment?: string) {
  return grants.some(
    (g) =>
      (g.permission === 'ADMIN' || g.permission === permission) &&
      (!g.project || g.project === '*' || g.project === project) &&
      (!g.environment || g.environment === '*' || g.environment === environment),
  );
}

/** Whether the signed-in user may do `permission` (edit controls are hidden otherwise). */
export function useCan() {
  const grants = useMe().data?.permissions ?? [];
  return (permission: string, project?: string, environment?: string) =>
    allows(grants, permission, project, environment);
}
